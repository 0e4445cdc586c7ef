import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findOtelcol } from '../../src/testing/build-otelcol.js';
import { ManagedProcess } from '../../src/testing/managed-process.js';
import { findFreePorts } from '../../src/testing/ports.js';

/** An OpenTelemetry Collector (built by `kop setup-envtest --otelcol`) receiving OTLP/HTTP and writing it to a file. */
export interface RunningCollector {
  /** The OTLP/HTTP base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (`/v1/traces` is appended by exporters). */
  endpoint: string;
  /** Each ExportTraceServiceRequest the file exporter has written so far, as OTLP/JSON (one per line). */
  exportedRequests(): unknown[];
  stop(): Promise<void>;
}

/**
 * Starts the collector with only what a test needs: the OTLP receiver over HTTP on loopback in, the
 * file exporter out (flushed every 100 ms), its own metrics off so it opens no other port. The
 * config and the file live in `dir`, which the caller removes.
 */
export async function startOtelCollector(dir: string): Promise<RunningCollector> {
  const otelcol = findOtelcol();
  const spansFile = join(dir, 'spans.jsonl');
  const [port] = await findFreePorts(1);
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      'receivers:',
      '  otlp:',
      '    protocols:',
      '      http:',
      `        endpoint: 127.0.0.1:${port}`,
      'exporters:',
      '  file:',
      `    path: ${JSON.stringify(spansFile)}`,
      '    flush_interval: 100ms',
      'service:',
      '  telemetry:',
      '    metrics:',
      '      level: none',
      '  pipelines:',
      '    traces:',
      '      receivers: [otlp]',
      '      exporters: [file]',
      '',
    ].join('\n'),
  );
  const collector = ManagedProcess.start('otelcol', otelcol, ['--config', join(dir, 'config.yaml')]);
  const started = Date.now();
  while (!collector.outputTail().includes('Everything is ready')) {
    if (collector.exitStatus) throw new Error(`otelcol exited before it was ready:\n${collector.outputTail()}`);
    if (Date.now() - started > 60_000) {
      await collector.stop(5_000);
      throw new Error(`otelcol not ready after 60 s:\n${collector.outputTail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    exportedRequests() {
      let text: string;
      try {
        text = readFileSync(spansFile, 'utf8');
      } catch {
        return [];
      }
      // A line still being written is not yet a whole request: read up to the last newline.
      return text
        .slice(0, text.lastIndexOf('\n') + 1)
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as unknown);
    },
    async stop() {
      await collector.stop(10_000);
    },
  };
}
