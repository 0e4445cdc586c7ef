/**
 * A module proxy and checksum database on a local port, speaking the real protocols
 * (`@v/list`, `.info`, `.mod`, `.zip`, `/sumdb/<name>/supported|lookup`), with an Ed25519 key of
 * its own, so the fetch, verify and cache paths run against HTTP as they do against the real ones.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateRawSync } from 'node:zlib';

/** A zip of `files` (deflated), as a module proxy serves one. */
export function makeZip(files: ReadonlyArray<{ name: string; data: string | Buffer }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const data = Buffer.from(file.data);
    const packed = deflateRawSync(data);
    const name = Buffer.from(file.name);
    const header = (central: boolean) => {
      const b = Buffer.alloc(central ? 46 : 30);
      b.writeUInt32LE(central ? 0x02014b50 : 0x04034b50, 0);
      const o = central ? 2 : 0;
      if (central) b.writeUInt16LE(20, 4);
      b.writeUInt16LE(20, 4 + o);
      b.writeUInt16LE(0, 6 + o);
      b.writeUInt16LE(8, 8 + o);
      b.writeUInt32LE(crc32(data), 14 + o);
      b.writeUInt32LE(packed.length, 18 + o);
      b.writeUInt32LE(data.length, 22 + o);
      b.writeUInt16LE(name.length, 26 + o);
      if (central) b.writeUInt32LE(offset, 42);
      return b;
    };
    centrals.push(header(true), name);
    const local = Buffer.concat([header(false), name, packed]);
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Go's Hash1, written out again here (sorted by name, `sha256hex  name\n`), so the tests do not trust kop's. */
export function expectedHash(files: ReadonlyArray<{ name: string; data: string | Buffer }>): string {
  const sha = (d: string | Buffer) => createHash('sha256').update(d).digest('hex');
  const summary = [...files]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((f) => `${sha(f.data)}  ${f.name}\n`)
    .join('');
  return `h1:${createHash('sha256').update(summary).digest('base64')}`;
}

/** A checksum database key: its verifier string (GOSUMDB) and a signer of notes. */
export function sumDbKey(name: string): { verifier: string; signNote(text: string): string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const key = Buffer.concat([Buffer.from([1]), raw]);
  const hash = createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), key]))
    .digest()
    .subarray(0, 4);
  return {
    verifier: `${name}+${hash.toString('hex')}+${key.toString('base64')}`,
    signNote: (text: string) => noteSignedWith(name, hash, privateKey, text),
  };
}

function noteSignedWith(name: string, keyHash: Buffer, privateKey: KeyObject, text: string): string {
  const signature = sign(null, Buffer.from(text), privateKey);
  return `${text}\n\u2014 ${name} ${Buffer.concat([keyHash, signature]).toString('base64')}\n`;
}

/** The fake server: `routes` maps a path to a body (or a status); every request is logged. */
export async function startFakeServer(
  routes: Map<string, string | Buffer | number>,
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = request.url ?? '/';
    requests.push(url);
    const route = routes.get(url);
    if (route === undefined) {
      response.writeHead(404).end('not found: no such module');
    } else if (typeof route === 'number') {
      response.writeHead(route).end(`status ${route}`);
    } else {
      response.writeHead(200).end(route);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A checksum database's log of `records`, written out again here so the tests do not trust
 * kop's tlog.ts: RFC 6962 leaf and node hashes, the root by the RFC's recursive definition, and
 * the tiles of height 8 a database serves (`tile/8/<level>/<index>[.p/<width>]`, keyed by path).
 */
export function buildLog(records: readonly string[]): { size: number; root: Buffer; tiles: Map<string, Buffer> } {
  const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
  const leaves = records.map((r) => sha(Buffer.from([0]), Buffer.from(r)));
  // levels[h][i]: the hash of the complete subtree of 2^h leaves starting at leaf i * 2^h.
  const levels: Buffer[][] = [leaves];
  while (levels.at(-1)!.length >= 2) {
    const below = levels.at(-1)!;
    levels.push(
      Array.from({ length: Math.floor(below.length / 2) }, (_, i) =>
        sha(Buffer.from([1]), below[2 * i]!, below[2 * i + 1]!),
      ),
    );
  }
  const mth = (from: number, to: number): Buffer => {
    if (to - from === 1) return leaves[from]!;
    let k = 1;
    while (k * 2 < to - from) k *= 2;
    // The left part of the RFC's split is a complete subtree (k leaves from a multiple of k), hashed
    // in levels already: the recursion hashes only the right edge, not the whole tree a second time.
    const left = levels[Math.log2(k)]![from / k]!;
    return sha(Buffer.from([1]), left, mth(from + k, to));
  };
  const tiles = new Map<string, Buffer>();
  for (let level = 0; 8 * level < levels.length; level++) {
    const hashes = levels[8 * level]!;
    for (let index = 0; index * 256 < hashes.length; index++) {
      const slice = hashes.slice(index * 256, index * 256 + 256);
      tiles.set(logTilePath(level, index, slice.length), Buffer.concat(slice));
    }
  }
  return { size: records.length, root: mth(0, records.length), tiles };
}

/** `tile/8/<level>/x001/x234/067[.p/<width>]`: the index three digits at a time. */
export function logTilePath(level: number, index: number, width: number): string {
  const groups: string[] = [];
  let rest = index;
  do {
    groups.unshift(String(rest % 1000).padStart(3, '0'));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  const digits = groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
  return `tile/8/${level}/${digits}${width === 256 ? '' : `.p/${width}`}`;
}

/** The signed tree head of a log: the note a database appends to each lookup answer. */
export function treeNote(key: { signNote(text: string): string }, size: number, root: Buffer): string {
  return key.signNote(`go.sum database tree\n${size}\n${root.toString('base64')}\n`);
}
