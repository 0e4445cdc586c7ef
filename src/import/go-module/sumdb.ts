/**
 * The Go checksum database (GOSUMDB): the `h1:` hashes it records for a module version, read
 * with `/lookup/<module>@<version>` and accepted only when the signed tree head that comes with
 * them carries a valid Ed25519 signature of the database's key (golang.org/x/mod/sumdb/note)
 * and the record is in that tree: its inclusion is proven from the database's tiles (tlog.ts),
 * as the go command does, so a database (or proxy) cannot answer one client with a record it
 * never published; and the tree must extend the one the last lookup saw (saved beside the
 * module cache), so it cannot show one client a history it hides from others. Like the go command, the requests go through the first proxy of GOPROXY that
 * serves `/sumdb/<name>/supported`, else to the database itself.
 */
import { createHash, createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { KopError } from '../../base/index.js';
import { getUrl, NotFoundError, type Fetcher, type ProxyEntry } from './go-proxy.js';
import { escapeModulePath } from './module-path.js';
import {
  provenLeafHash,
  provenPrefixRoot,
  recordHash,
  TreeMismatchError,
  type TileReader,
  type TreeHead,
} from './tlog.js';

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

/** A `/lookup` answer whose signature checks, before its inclusion in the tree is proven. */
export interface SignedLookup extends SumDbRecord {
  /** The record's number in the log, and its text (the lines hashed into the tree). */
  id: number;
  text: Buffer;
  tree: TreeHead;
  /** The signed note of the tree head, as it came. */
  note: string;
}

/**
 * Looks `modulePath@version` up in `db`, through the first proxy of `proxies` that serves it,
 * else directly; checks the signature of the tree head that comes with it and proves from the
 * tiles that the record is in that tree.
 */
export async function lookupSumDb(
  db: SumDatabase,
  modulePath: string,
  version: string,
  proxies: readonly ProxyEntry[],
  fetcher: Fetcher,
  stateDir?: string,
): Promise<SumDbRecord> {
  const base = await databaseBase(db, proxies, fetcher);
  const url = `${base}/lookup/${escapeModulePath(modulePath)}@${escapeModulePath(version)}`;
  let body: string;
  try {
    body = (await getUrl(url, fetcher)).toString('utf8');
  } catch (error) {
    if (error instanceof NotFoundError)
      throw new KopError(
        `${modulePath}@${version}: the checksum database ${db.name} has no such version: ${error.message}`,
      );
    throw new SumDbUnreachableError(`checksum database ${db.name}: ${describe(error)} (${url})`);
  }
  const lookup = parseLookup(db, modulePath, version, body);
  const readTile = tileReader(db, base, fetcher);
  const where = `${modulePath}@${version}: the checksum database ${db.name}`;
  const latest = stateDir === undefined ? undefined : path.join(stateDir, 'latest');
  const saved = latest === undefined ? undefined : await readSavedTree(db, latest);
  if (saved !== undefined) await checkTimeline(where, saved, lookup.tree, latest!, readTile);
  await proveInclusion(where, lookup, readTile);
  if (latest !== undefined && (saved === undefined || lookup.tree.size > saved.size))
    await saveTree(latest, lookup.note);
  return { zipHash: lookup.zipHash, goModHash: lookup.goModHash };
}

/** Parses a `/lookup` answer (record id, record lines, blank line, signed tree head) and checks its signature. */
export function parseLookup(db: SumDatabase, modulePath: string, version: string, body: string): SignedLookup {
  const bad = (why: string) =>
    new KopError(`checksum database ${db.name}: its answer for ${modulePath}@${version} ${why}`);
  const idEnd = body.indexOf('\n');
  const split = body.indexOf('\n\n', idEnd);
  if (idEnd === -1 || split === -1) throw bad('has no signed tree head');
  const idText = body.slice(0, idEnd);
  const id = Number(idText);
  if (!/^\d+$/.test(idText) || !Number.isSafeInteger(id)) throw bad(`has no record number (${JSON.stringify(idText)})`);
  const noteText = verifyNote(db, body.slice(split + 2), bad);
  const tree = parseTreeHead(noteText);
  if (tree === undefined) throw bad('signs no go.sum database tree');
  const text = body.slice(idEnd + 1, split + 1);
  const lines = text.split('\n');
  const hashOf = (v: string) =>
    lines.map((l) => l.split(' ')).find((f) => f.length === 3 && f[0] === modulePath && f[1] === v)?.[2];
  const zipHash = hashOf(version);
  const goModHash = hashOf(`${version}/go.mod`);
  if (zipHash === undefined || goModHash === undefined) throw bad('does not list its hashes');
  return { zipHash, goModHash, id, text: Buffer.from(text, 'utf8'), tree, note: body.slice(split + 2) };
}

/** `go.sum database tree`, the size and the base64 root hash, one a line (later lines are ignored, as Go does). */
function parseTreeHead(text: string): TreeHead | undefined {
  const [title, size, hash] = text.split('\n');
  if (title !== 'go.sum database tree' || !/^\d+$/.test(size ?? '') || hash === undefined) return undefined;
  const root = Buffer.from(hash, 'base64');
  if (root.length !== 32 || root.toString('base64') !== hash) return undefined;
  return { size: Number(size), hash: root };
}

/** Reads tiles of the database at `base`; a missing partial tile is read from its full tile. */
function tileReader(db: SumDatabase, base: string, fetcher: Fetcher): TileReader {
  return async (tilePath, fullTilePath) => {
    try {
      return await getUrl(`${base}/${tilePath}`, fetcher);
    } catch (error) {
      // A database drops a partial tile once the tile is complete; the full one holds the same hashes first.
      if (error instanceof NotFoundError && fullTilePath !== undefined) {
        try {
          return await getUrl(`${base}/${fullTilePath}`, fetcher);
        } catch {
          // Report the tile that was asked for.
        }
      }
      throw new SumDbUnreachableError(`checksum database ${db.name}: ${describe(error)} (${base}/${tilePath})`);
    }
  };
}

const FORGED_HINT =
  'the database or a proxy on the way is forging answers; do not use the module until you know why (set GOPROXY and GOSUMDB to trusted servers)';

/** Runs a proof over tiles, turning tiles that do not match into an error naming the module and database. */
async function withTiles<T>(where: string, prove: () => Promise<T>): Promise<T> {
  try {
    return await prove();
  } catch (error) {
    if (!(error instanceof TreeMismatchError)) throw error;
    throw new KopError(
      `${where} served tiles that do not match its signed tree head: ${error.message}; nothing was written`,
      FORGED_HINT,
    );
  }
}

/** Proves from the database's tiles that the looked-up record is the one its signed tree holds at its number. */
async function proveInclusion(where: string, lookup: SignedLookup, readTile: TileReader): Promise<void> {
  const leaf = await withTiles(where, () => provenLeafHash(lookup.tree, lookup.id, readTile));
  if (!leaf.equals(recordHash(lookup.text)))
    throw new KopError(
      `${where} answered with a record that is not in its signed tree (record ${lookup.id} of ${lookup.tree.size} holds other hashes); nothing was written`,
      FORGED_HINT,
    );
}

/**
 * The tree only grows: the tree head signed now and the one kop saw last (kept beside the
 * module cache, as the go command keeps it) must be one a prefix of the other, proven from the
 * larger tree's tiles. Two trees that are not would be two histories shown to different users.
 */
async function checkTimeline(
  where: string,
  saved: TreeHead,
  current: TreeHead,
  file: string,
  readTile: TileReader,
): Promise<void> {
  const [small, large] = saved.size <= current.size ? [saved, current] : [current, saved];
  const forked = (detail: string) =>
    new KopError(
      `${where} signed a tree of ${current.size} records that is not consistent with the tree of ${saved.size} records it signed before (kept in ${file}${detail}): it is showing different histories; nothing was written`,
      'the database or a proxy on the way is forging its log; do not use modules it verifies until you know why',
    );
  let root: Buffer;
  try {
    root = small.size === large.size ? large.hash : await provenPrefixRoot(large, small.size, readTile);
  } catch (error) {
    if (!(error instanceof TreeMismatchError)) throw error;
    // Tiles that do not hash to the larger tree: it no longer serves the history it signed.
    throw forked(`; ${error.message}`);
  }
  if (!root.equals(small.hash)) throw forked('');
}

/** The tree head saved by an earlier lookup, if its signature still checks. */
async function readSavedTree(db: SumDatabase, file: string): Promise<TreeHead | undefined> {
  let note: string;
  try {
    note = await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return parseTreeHead(verifyNote(db, note, (why) => new KopError(why)));
  } catch {
    // A damaged file proves nothing either way; the next lookup replaces it.
    return undefined;
  }
}

/** Saves the signed note whole (temporary file, then rename). */
async function saveTree(file: string, note: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temporary, note);
    await fs.rename(temporary, file);
  } finally {
    await fs.rm(temporary, { force: true });
  }
}

/** Checks that `note` (text, blank line, `— name base64` signature lines) is signed by `db`'s key; returns its text. */
function verifyNote(db: SumDatabase, note: string, bad: (why: string) => KopError): string {
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
  return text;
}

/**
 * `<proxy>/sumdb/<name>` for the first proxy of GOPROXY that says it serves the database, as the
 * go command decides: a 404 or 410 (or any error, after a `|`) moves on to the next proxy;
 * `direct`, `off` or the end of the list means the database's own URL; any other error stops.
 */
async function databaseBase(db: SumDatabase, proxies: readonly ProxyEntry[], fetcher: Fetcher): Promise<string> {
  for (const proxy of proxies) {
    if (proxy.url === 'direct' || proxy.url === 'off') break;
    const base = `${proxy.url}/sumdb/${db.name}`;
    try {
      await getUrl(`${base}/supported`, fetcher);
      return base;
    } catch (error) {
      if (!(error instanceof NotFoundError) && !proxy.fallThroughOnAnyError)
        throw new SumDbUnreachableError(
          `checksum database ${db.name}: ${describe(error)} (${base}/supported, and GOPROXY falls through only on 404 or 410 after a ',')`,
        );
    }
  }
  return db.url;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
