import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/** One entry of a test archive; `type` defaults to a plain file. */
export interface FakeTarEntry {
  path: string;
  type?: 'file' | 'directory' | 'symlink' | 'hardlink' | 'fifo';
  body?: string | Buffer;
  linkTarget?: string;
  mode?: number;
  /** Store the name in a pax header instead of the ustar fields. */
  paxPath?: boolean;
  /** Store the name in a GNU `L` long-name entry. */
  gnuLongName?: boolean;
}

const TYPEFLAGS = { file: '0', directory: '5', symlink: '2', hardlink: '1', fifo: '6' } as const;

/** A tar archive written by hand, so tests can make the malformed and hostile ones real tools refuse to write. */
export function tarArchive(entries: readonly FakeTarEntry[], options: { endMarker?: boolean } = {}): Buffer {
  const blocks: Buffer[] = [];
  const push = (header: Buffer, body?: Buffer) => {
    blocks.push(header);
    if (body && body.length > 0) blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
  };
  for (const entry of entries) {
    const body = entry.body === undefined ? Buffer.alloc(0) : Buffer.from(entry.body);
    const typeflag = TYPEFLAGS[entry.type ?? 'file'];
    let storedName = entry.path;
    if (entry.paxPath) {
      const record = paxRecord('path', entry.path);
      push(tarHeader({ name: 'PaxHeaders/x', size: record.length, typeflag: 'x', mode: 0o644 }), record);
      storedName = 'placeholder';
    } else if (entry.gnuLongName) {
      const name = Buffer.from(`${entry.path}\0`);
      push(tarHeader({ name: '././@LongLink', size: name.length, typeflag: 'L', mode: 0o644 }), name);
      storedName = entry.path.slice(0, 99);
    }
    const size = typeflag === '0' ? body.length : 0;
    push(
      tarHeader({ name: storedName, size, typeflag, mode: entry.mode ?? 0o755, linkname: entry.linkTarget }),
      typeflag === '0' ? body : undefined,
    );
  }
  if (options.endMarker !== false) blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** A ustar header block with a correct checksum; `base256Size` writes the size in GNU's binary form. */
export function tarHeader(fields: {
  name: string;
  size: number;
  typeflag: string;
  mode: number;
  linkname?: string;
  base256Size?: boolean;
}): Buffer {
  const header = Buffer.alloc(512);
  const name = Buffer.from(fields.name);
  if (name.length > 100) throw new Error(`name too long for a plain header: ${fields.name}`);
  name.copy(header, 0);
  header.write(octal(fields.mode, 8), 100, 'latin1');
  header.write(octal(0, 8), 108, 'latin1');
  header.write(octal(0, 8), 116, 'latin1');
  if (fields.base256Size) {
    header[124] = 0x80;
    header.writeUIntBE(fields.size, 136 - 6, 6);
  } else {
    header.write(octal(fields.size, 12), 124, 'latin1');
  }
  header.write(octal(1_700_000_000, 12), 136, 'latin1');
  header.write(fields.typeflag, 156, 'latin1');
  if (fields.linkname) header.write(fields.linkname, 157, 'utf8');
  header.write('ustar\0', 257, 'latin1');
  header.write('00', 263, 'latin1');
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return header;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function paxRecord(key: string, value: string): Buffer {
  const text = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(text) + 1;
  while (`${length}${text}`.length !== length) length = Buffer.byteLength(`${length}${text}`);
  return Buffer.from(`${length}${text}`);
}

/** Shell scripts that answer `--version` / `version --client` as the real programs do. */
export function fakeBinaries(
  kubernetesVersion = '1.36.3',
  etcdVersion = '3.6.4',
): Record<'kube-apiserver' | 'etcd' | 'kubectl', string> {
  return {
    'kube-apiserver': `#!/bin/sh\necho "Kubernetes v${kubernetesVersion}"\n`,
    etcd: `#!/bin/sh\necho "etcd Version: ${etcdVersion}"\necho "Git SHA: fake"\n`,
    kubectl: `#!/bin/sh\necho "Client Version: v${kubernetesVersion}"\n`,
  };
}

/** An envtest archive as controller-tools lays it out: `controller-tools/envtest/<binary>`, gzipped. */
export function fakeEnvtestArchive(
  binaries: Record<string, string> = fakeBinaries(),
  extra: readonly FakeTarEntry[] = [],
): Buffer {
  return gzipSync(
    tarArchive([
      { path: 'controller-tools/', type: 'directory' },
      { path: 'controller-tools/envtest/', type: 'directory' },
      ...Object.entries(binaries).map(([name, body]) => ({ path: `controller-tools/envtest/${name}`, body })),
      ...extra,
    ]),
  );
}

export function sha512(data: Buffer): string {
  return createHash('sha512').update(data).digest('hex');
}

/** An index in controller-tools' format listing one archive. */
export function envtestIndex(version: string, archiveName: string, hash: string, selfLink: string): string {
  return [
    'releases:',
    `  v${version}:`,
    `    ${archiveName}:`,
    `      hash: ${hash}`,
    `      selfLink: ${selfLink}`,
    '',
  ].join('\n');
}

/** What a route of the test server does. */
export type Route =
  | { body: string | Buffer; status?: number }
  /** Announces `length` bytes, sends `body`, then cuts the connection. */
  | { body: Buffer; announce: number }
  /** Sends the headers, then nothing. */
  | { stall: true };

/** A local HTTP server for the envtest index and archives; `requests` records every path asked for. */
export interface EnvtestServer {
  url: string;
  routes: Map<string, Route>;
  requests: string[];
  close(): Promise<void>;
}

export async function startEnvtestServer(): Promise<EnvtestServer> {
  const routes = new Map<string, Route>();
  const requests: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const route = routes.get(path);
    if (!route) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    } else if ('stall' in route) {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '1000' });
      response.flushHeaders();
    } else if ('announce' in route) {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(route.announce) });
      response.write(route.body, () => response.socket?.destroy());
    } else {
      response.writeHead(route.status ?? 200, { 'content-type': 'application/octet-stream' }).end(route.body);
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routes,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
