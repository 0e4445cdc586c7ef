/**
 * The Go checksum database (GOSUMDB): the `h1:` hashes it records for a module version, read
 * with `/lookup/<module>@<version>` and accepted only when the signed tree head that comes with
 * them carries a valid Ed25519 signature of the database's key (golang.org/x/mod/sumdb/note).
 * Like the go command, the lookup goes through a proxy of GOPROXY that serves
 * `/sumdb/<name>/supported`, else to the database itself. The record's inclusion proof in the
 * tree (tiles) is not checked: the signature binds the tree head, not the record.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { KopError } from '../../base/errors.js';
import { escapeModulePath } from './module-path.js';

/** The database of Go's default GOSUMDB, and its public key as `go env GOSUMDB` may spell it. */
const KNOWN_DATABASES: Record<string, { key: string; url: string }> = {
  'sum.golang.org': {
    key: 'sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8',
    url: 'https://sum.golang.org',
  },
  // The mirror in China signs with sum.golang.org's key.
  'sum.golang.google.cn': {
    key: 'sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8',
    url: 'https://sum.golang.google.cn',
  },
};

/** A checksum database: its name, verifier key and URL. */
export interface SumDatabase {
  name: string;
  url: string;
  keyHash: number;
  publicKey: KeyObject;
}

/** The database GOSUMDB names (`name`, `name+hash+key`, either followed by a URL), or undefined for `off`. */
export function parseGoSumDb(value: string): SumDatabase | undefined {
  const [spec = '', url] = value.trim().split(/\s+/);
  if (spec === 'off') return undefined;
  const known = KNOWN_DATABASES[spec];
  const verifier = known?.key ?? spec;
  // name+hash+key: the key's base64 may hold '+' too.
  const first = verifier.indexOf('+');
  const second = verifier.indexOf('+', first + 1);
  const parts =
    first > 0 && second > first
      ? [verifier.slice(0, first), verifier.slice(first + 1, second), verifier.slice(second + 1)]
      : [];
  const bad = (why: string) =>
    new KopError(
      `GOSUMDB ${JSON.stringify(value)}: ${why}`,
      'set GOSUMDB to sum.golang.org, to name+hash+key of another database, or to off',
    );
  if (parts.length !== 3) throw bad('not a known database nor a name+hash+key verifier');
  const [keyName, hashHex, keyB64] = parts as [string, string, string];
  const key = Buffer.from(keyB64, 'base64');
  if (!/^[0-9a-f]{8}$/.test(hashHex) || key.length !== 33 || key[0] !== 1) throw bad('the key is not an Ed25519 key');
  const keyHash = parseInt(hashHex, 16);
  if (keyHashOf(keyName, key) !== keyHash) throw bad('the key hash does not match the key');
  // The raw 32-byte key, wrapped in the fixed SPKI header of Ed25519 for node:crypto.
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), key.subarray(1)]);
  return {
    name: keyName,
    url: (url ?? known?.url ?? `https://${keyName}`).replace(/\/+$/, ''),
    keyHash,
    publicKey: createPublicKey({ key: spki, format: 'der', type: 'spki' }),
  };
}

/** The first four bytes of SHA-256(name + "\n" + algorithm byte + key), as a note's key hash. */
function keyHashOf(name: string, key: Buffer): number {
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), key]))
    .digest()
    .readUInt32BE(0);
}

/** The database could not be reached (the caller decides whether to go on unverified). */
export class SumDbUnreachableError extends KopError {}

/** What the database records for a module version. */
export interface SumDbRecord {
  zipHash: string;
  goModHash: string;
}

export type Fetcher = (url: string) => Promise<Response>;

/**
 * Looks `modulePath@version` up in `db`, through the first proxy of `proxies` that supports it,
 * else directly, and checks the signature of the tree head that comes with it.
 */
export async function lookupSumDb(
  db: SumDatabase,
  modulePath: string,
  version: string,
  proxies: readonly string[],
  fetcher: Fetcher,
): Promise<SumDbRecord> {
  const base = await databaseBase(db, proxies, fetcher);
  const url = `${base}/lookup/${escapeModulePath(modulePath)}@${escapeModulePath(version)}`;
  let response: Response;
  try {
    response = await fetcher(url);
  } catch (error) {
    throw new SumDbUnreachableError(`checksum database ${db.name}: ${describe(error)} (${url})`);
  }
  const body = await response.text();
  if (response.status === 404 || response.status === 410)
    throw new KopError(
      `${modulePath}@${version}: the checksum database ${db.name} has no such version: ${body.trim().split('\n')[0]}`,
    );
  if (!response.ok) throw new SumDbUnreachableError(`checksum database ${db.name}: HTTP ${response.status} (${url})`);
  return parseLookup(db, modulePath, version, body);
}

/** Parses and verifies a `/lookup` answer: record id, record lines, blank line, signed note. */
export function parseLookup(db: SumDatabase, modulePath: string, version: string, body: string): SumDbRecord {
  const split = body.indexOf('\n\n');
  const bad = (why: string) =>
    new KopError(`checksum database ${db.name}: its answer for ${modulePath}@${version} ${why}`);
  if (split === -1) throw bad('has no signed tree head');
  verifyNote(db, body.slice(split + 2), bad);
  const lines = body.slice(0, split).split('\n').slice(1);
  const hashOf = (v: string) =>
    lines.map((l) => l.split(' ')).find((f) => f.length === 3 && f[0] === modulePath && f[1] === v)?.[2];
  const zipHash = hashOf(version);
  const goModHash = hashOf(`${version}/go.mod`);
  if (zipHash === undefined || goModHash === undefined) throw bad('does not list its hashes');
  return { zipHash, goModHash };
}

/** Checks that `note` (text, blank line, `— name base64` signature lines) is signed by `db`'s key. */
function verifyNote(db: SumDatabase, note: string, bad: (why: string) => KopError): void {
  const split = note.lastIndexOf('\n\n');
  if (split === -1) throw bad('has a malformed signed note');
  const text = note.slice(0, split + 1);
  const signed = note
    .slice(split + 2)
    .split('\n')
    .filter((l) => l.startsWith('\u2014 '))
    .map((l) => l.slice(2).split(' '))
    .some(([name, b64]) => {
      if (name !== db.name || b64 === undefined) return false;
      const sig = Buffer.from(b64, 'base64');
      return (
        sig.length === 68 &&
        sig.readUInt32BE(0) === db.keyHash &&
        verify(null, Buffer.from(text), db.publicKey, sig.subarray(4))
      );
    });
  if (!signed) throw bad(`is not signed by ${db.name}'s key`);
}

/** `<proxy>/sumdb/<name>` for the first proxy that says it serves the database, else the database's URL. */
async function databaseBase(db: SumDatabase, proxies: readonly string[], fetcher: Fetcher): Promise<string> {
  for (const proxy of proxies) {
    const base = `${proxy}/sumdb/${db.name}`;
    try {
      const response = await fetcher(`${base}/supported`);
      await response.body?.cancel();
      if (response.ok) return base;
    } catch {
      // The go command moves on to the next proxy, then to the database itself.
    }
  }
  return db.url;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
