import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeOtlpTraces, type DecodedSpan } from './otlp-json.js';

/** Bodies larger than this are refused (413): a manager's batch is 512 spans at most, far below. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Options of {@link TraceReceiver.start}. */
export interface TraceReceiverOptions {
  /** Called with the spans of each export request. */
  onSpans(spans: DecodedSpan[]): void;
  /** Called when a request is refused (a body that is not OTLP/JSON), with why. */
  onRefused(message: string): void;
}

/**
 * An OTLP/HTTP receiver of traces in JSON (`POST /v1/traces`, `application/json`) on 127.0.0.1
 * and a port of the system's choosing: what `kop dev --trace` points the manager's exporter at
 * (OTEL_EXPORTER_OTLP_PROTOCOL=http/json). Other paths are 404, protobuf bodies 415.
 */
export class TraceReceiver {
  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>`, the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
    readonly url: string,
  ) {}

  static async start(options: TraceReceiverOptions): Promise<TraceReceiver> {
    const server = createServer((request, response) => handle(request, response, options));
    // Exporters keep connections open; closing the receiver must not wait for them.
    server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new TraceReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  /** Stops listening and ends open connections. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }
}

function handle(request: IncomingMessage, response: ServerResponse, options: TraceReceiverOptions): void {
  const answer = (status: number, body: string, type = 'application/json') => {
    if (!response.headersSent) response.writeHead(status, { 'content-type': type }).end(body);
  };
  if (request.url !== '/v1/traces') {
    request.resume();
    answer(404, JSON.stringify({ message: 'kop dev receives traces only, on /v1/traces' }));
    return;
  }
  if (request.method !== 'POST') {
    request.resume();
    answer(405, JSON.stringify({ message: 'POST spans to /v1/traces' }));
    return;
  }
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (contentType !== 'application/json') {
    request.resume();
    const message = `kop dev --trace receives OTLP/JSON; this request is ${contentType || 'of no content type'} (set OTEL_EXPORTER_OTLP_PROTOCOL=http/json)`;
    options.onRefused(message);
    answer(415, JSON.stringify({ message }));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      answer(413, JSON.stringify({ message: `a body above ${MAX_BODY_BYTES} bytes` }));
      request.destroy();
      return;
    }
    chunks.push(chunk);
  });
  request.on('end', () => {
    let spans: DecodedSpan[];
    try {
      spans = decodeOtlpTraces(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch (error) {
      const message = `an OTLP/JSON request kop dev cannot read: ${(error as Error).message}`;
      options.onRefused(message);
      answer(400, JSON.stringify({ message }));
      return;
    }
    // An empty ExportTraceServiceResponse: every span accepted.
    answer(200, '{}');
    options.onSpans(spans);
  });
  request.on('error', () => undefined);
}
