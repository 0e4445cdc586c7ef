/**
 * The transparency log behind a Go checksum database (golang.org/x/mod/sumdb/tlog): records are
 * the leaves of an RFC 6962 Merkle tree, and the database serves the tree's stored hashes in
 * tiles, `tile/8/<level>/<index>[.p/<width>]`, each holding up to 256 hashes of one tree level
 * (tile level L holds tree level 8L). A signed tree head names the tree's size and root hash; a
 * record is in that tree when the root computed from the record's leaf hash and the tiles is the
 * signed one. The proof needs about log2(size) hashes, from a handful of tiles.
 */
import { createHash } from 'node:crypto';

/** The tile height the Go checksum database serves (golang.org/x/mod/sumdb uses 8). */
export const TILE_HEIGHT = 8;
const TILE_WIDTH = 2 ** TILE_HEIGHT;
const HASH_SIZE = 32;

/** A tree head: how many records the tree holds and its root hash. */
export interface TreeHead {
  size: number;
  hash: Buffer;
}

/**
 * Reads one tile by its path (`tile/8/0/x001/234.p/5`); for a partial tile also given the path of
 * the full one, which a database serves instead once the tree has grown past it.
 */
export type TileReader = (tilePath: string, fullTilePath: string | undefined) => Promise<Buffer>;

/** The RFC 6962 hash of a leaf: SHA-256 of a zero byte and the record's text. */
export function recordHash(text: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.from([0]))
    .update(text)
    .digest();
}

/** The RFC 6962 hash of an inner node: SHA-256 of a one byte and its children's hashes. */
export function nodeHash(left: Buffer, right: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.from([1]))
    .update(left)
    .update(right)
    .digest();
}

/**
 * The path of a tile: the index in groups of three digits, all but the last prefixed `x`
 * (1234067 -> x001/x234/067), so no directory of a static server holds more than 3000 entries;
 * a tile narrower than 256 hashes (the tree's right edge) ends in `.p/<width>`.
 */
export function tilePath(level: number, index: number, width: number): string {
  let digits = String(index % 1000).padStart(3, '0');
  for (let rest = Math.floor(index / 1000); rest > 0; rest = Math.floor(rest / 1000))
    digits = `x${String(rest % 1000).padStart(3, '0')}/${digits}`;
  return `tile/${TILE_HEIGHT}/${level}/${digits}${width === TILE_WIDTH ? '' : `.p/${width}`}`;
}

/** The tiles do not hash to the signed root: the database (or a proxy on the way) served a tree other than the one it signed. */
export class TreeMismatchError extends Error {}

/**
 * The hash the tree stores for leaf `id`, proven to belong to `tree`: the root is recomputed
 * from that leaf hash and the hashes beside its path (complete subtrees read from tiles, the
 * right edge computed), and must be the signed root. Throws TreeMismatchError when it is not.
 */
export async function provenLeafHash(tree: TreeHead, id: number, readTile: TileReader): Promise<Buffer> {
  if (!Number.isSafeInteger(id) || id < 0 || id >= tree.size)
    throw new TreeMismatchError(`record ${id} is not within the signed tree of ${tree.size} records`);
  return (await provenHashes(tree, readTile, { leaf: id })).leaf!;
}

/**
 * The root of the tree's first `size` records, proven to be a prefix of `tree` the same way:
 * a tree head signed earlier must have this root, else the database showed two histories.
 */
export async function provenPrefixRoot(tree: TreeHead, size: number, readTile: TileReader): Promise<Buffer> {
  if (!Number.isSafeInteger(size) || size < 1 || size > tree.size)
    throw new TreeMismatchError(`a tree of ${size} records is not a prefix of the signed tree of ${tree.size} records`);
  return (await provenHashes(tree, readTile, { prefix: size })).prefix!;
}

/**
 * Recomputes the root of `tree` from its tiles, splitting every range that holds the wanted
 * leaf or straddles the end of the wanted prefix, so that their hashes are among those the
 * signed root was computed from.
 */
async function provenHashes(
  tree: TreeHead,
  readTile: TileReader,
  wanted: { leaf?: number; prefix?: number },
): Promise<{ leaf?: Buffer; prefix?: Buffer }> {
  if (!Number.isSafeInteger(tree.size) || tree.size < 1)
    throw new TreeMismatchError(`a signed tree of ${tree.size} records`);
  const id = wanted.leaf ?? -1;
  const cut = wanted.prefix ?? 0;
  const tiles = new Map<string, Promise<Buffer>>();
  const read: string[] = [];

  /** The tile holding tree level `TILE_HEIGHT * level` at `index`, as wide as the tree makes it. */
  const tile = (level: number, index: number): Promise<Buffer> => {
    const hashesAtLevel = Math.floor(tree.size / 2 ** (TILE_HEIGHT * level));
    const width = Math.min(TILE_WIDTH, hashesAtLevel - index * TILE_WIDTH);
    const where = tilePath(level, index, width);
    let pending = tiles.get(where);
    if (pending === undefined) {
      read.push(where);
      pending = readTile(where, width === TILE_WIDTH ? undefined : tilePath(level, index, TILE_WIDTH)).then((data) => {
        // A full tile served for a partial one: its first `width` hashes are the partial tile.
        if (data.length === TILE_WIDTH * HASH_SIZE && width < TILE_WIDTH) data = data.subarray(0, width * HASH_SIZE);
        if (data.length !== width * HASH_SIZE)
          throw new TreeMismatchError(`tile ${where} has ${data.length} bytes, not ${width * HASH_SIZE}`);
        return data;
      });
      tiles.set(where, pending);
    }
    return pending;
  };

  /** The stored hash of the complete subtree of 2^height leaves numbered `n` at that height. */
  const stored = async (height: number, n: number): Promise<Buffer> => {
    const level = Math.floor(height / TILE_HEIGHT);
    const span = 2 ** (height - level * TILE_HEIGHT);
    const first = n * span;
    const index = Math.floor(first / TILE_WIDTH);
    const data = await tile(level, index);
    let hashes: Buffer[] = [];
    for (let i = first - index * TILE_WIDTH; hashes.length < span; i++)
      hashes.push(data.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE));
    // The levels between two tile levels are not stored: they are hashed from the tile's.
    while (hashes.length > 1)
      hashes = hashes.filter((_, i) => i % 2 === 0).map((h, i) => nodeHash(h, hashes[2 * i + 1]!));
    return hashes[0]!;
  };

  /** Every range hashed on the way to the root, by `start+count`. */
  const ranges = new Map<string, Buffer>();
  const largestPowerBelow = (count: number) => {
    let split = 1;
    while (split * 2 < count) split *= 2;
    return split;
  };
  /** RFC 6962's hash of leaves [start, end): split at the largest power of two below the count. */
  const subtree = async (start: number, end: number): Promise<Buffer> => {
    const count = end - start;
    const holdsId = start <= id && id < end;
    const straddles = start < cut && cut < end;
    const height = Math.log2(count);
    let hash: Buffer;
    if (Number.isInteger(height) && start % count === 0 && (!holdsId || count === 1) && !straddles) {
      hash = await stored(height, start / count);
    } else {
      const split = start + largestPowerBelow(count);
      const [left, right] = await Promise.all([subtree(start, split), subtree(split, end)]);
      hash = nodeHash(left, right);
    }
    ranges.set(`${start}+${count}`, hash);
    return hash;
  };
  const root = await subtree(0, tree.size);
  if (!root.equals(tree.hash))
    throw new TreeMismatchError(
      `its tiles (${read.join(', ')}) do not hash to the root of the signed tree of ${tree.size} records`,
    );

  /** The prefix's own RFC 6962 hash, from the ranges above: its complete subtrees are among them. */
  const prefixHash = (start: number, end: number): Buffer => {
    const known = ranges.get(`${start}+${end - start}`);
    if (known !== undefined) return known;
    if (end - start === 1) throw new TreeMismatchError(`record ${start} was not reached`);
    const split = start + largestPowerBelow(end - start);
    return nodeHash(prefixHash(start, split), prefixHash(split, end));
  };
  return {
    ...(wanted.leaf === undefined ? {} : { leaf: ranges.get(`${id}+1`)! }),
    ...(wanted.prefix === undefined ? {} : { prefix: prefixHash(0, cut) }),
  };
}
