/**
 * The inclusion proof of a checksum database record (src/import/go-module/tlog.ts) against logs
 * built independently in fake-goproxy.ts: every leaf of small trees, the edges of tiles (255,
 * 256, 257 records), a tree with level-2 tiles, a full tile served for a partial one, and tiles
 * that were tampered with or cut short.
 */
import { describe, expect, it } from 'vitest';
import {
  provenLeafHash,
  provenPrefixRoot,
  recordHash,
  tilePath,
  TreeMismatchError,
} from '../../../src/import/go-module/tlog.js';
import { buildLog, logTilePath } from './fake-goproxy.js';

const records = (n: number) => Array.from({ length: n }, (_, i) => `example.com/m${i} v1.0.${i} h1:${i}=\n`);

/** A tile reader over a map of tiles, falling back to the full tile as the database client does. */
const reader = (tiles: Map<string, Buffer>, asked: string[] = []) => {
  return async (path: string, full: string | undefined): Promise<Buffer> => {
    asked.push(path);
    const tile = tiles.get(path) ?? (full === undefined ? undefined : tiles.get(full));
    if (tile === undefined) throw new Error(`no ${path}`);
    return tile;
  };
};

describe('checksum database tiles', () => {
  it('names tiles three digits at a time, partial ones with their width', () => {
    expect(tilePath(0, 0, 256)).toBe('tile/8/0/000');
    expect(tilePath(1, 1234067, 5)).toBe('tile/8/1/x001/x234/067.p/5');
    expect(tilePath(2, 1000, 256)).toBe('tile/8/2/x001/000');
    for (const [level, index, width] of [
      [0, 7, 1],
      [3, 999, 256],
      [0, 123456789, 17],
    ] as const)
      expect(tilePath(level, index, width)).toBe(logTilePath(level, index, width));
  });

  it('proves every leaf of trees from 1 to 20 records, and the edges of tiles', async () => {
    for (let size = 1; size <= 20; size++) {
      const log = buildLog(records(size));
      for (let id = 0; id < size; id++)
        expect(await provenLeafHash({ size, hash: log.root }, id, reader(log.tiles))).toEqual(
          recordHash(Buffer.from(records(size)[id]!)),
        );
    }
    for (const size of [255, 256, 257, 300, 513]) {
      const log = buildLog(records(size));
      for (const id of [0, 1, 127, 254, 255, 256, 299, 511, 512].filter((i) => i < size))
        expect(await provenLeafHash({ size, hash: log.root }, id, reader(log.tiles))).toEqual(
          recordHash(Buffer.from(records(size)[id]!)),
        );
    }
  });

  it('reads a handful of tiles, from every tile level, in a tree of 70000 records', async () => {
    const all = records(70_000);
    const log = buildLog(all);
    const asked: string[] = [];
    const id = 65_600;
    expect(await provenLeafHash({ size: all.length, hash: log.root }, id, reader(log.tiles, asked))).toEqual(
      recordHash(Buffer.from(all[id]!)),
    );
    // Level 2 holds subtrees of 65536 records; the right edge is partial at every level.
    expect(asked).toContain('tile/8/2/000.p/1');
    expect(asked).toContain('tile/8/1/001.p/17');
    expect([...new Set(asked)].sort()).toEqual([
      'tile/8/0/256',
      'tile/8/0/273.p/112',
      'tile/8/1/001.p/17',
      'tile/8/2/000.p/1',
    ]);
  });

  it('takes the first hashes of a full tile when the partial one is gone (the tree grew)', async () => {
    const grown = buildLog(records(600));
    const signed = buildLog(records(300));
    // The level-0 tiles of the grown tree, all full, and the signed tree's level-1 tile.
    const tiles = new Map(
      [...grown.tiles, ...signed.tiles].filter(([path]) => !path.startsWith('tile/8/0/') || !path.includes('.p/')),
    );
    expect(tiles.has('tile/8/0/001')).toBe(true);
    expect(tiles.has('tile/8/0/001.p/44')).toBe(false);
    expect(await provenLeafHash({ size: 300, hash: signed.root }, 270, reader(tiles))).toEqual(
      recordHash(Buffer.from(records(300)[270]!)),
    );
  });

  it("proves the root of every earlier tree size from a later tree's tiles (the tree only grew)", async () => {
    const roots = new Map<number, Buffer>();
    const rootOf = (size: number) => roots.get(size) ?? roots.set(size, buildLog(records(size)).root).get(size)!;
    for (const size of [1, 2, 3, 7, 8, 9, 33, 256, 257, 300, 600]) {
      const log = buildLog(records(size));
      const head = { size, hash: log.root };
      const earlier =
        size <= 40
          ? Array.from({ length: size }, (_, i) => i + 1)
          : [1, 2, 5, 127, 128, 129, 255, 256, 257, 299, 300, 511, 512, 513, 599, 600];
      for (const m of earlier.filter((m) => m <= size))
        expect(await provenPrefixRoot(head, m, reader(log.tiles)), `${m} of ${size}`).toEqual(rootOf(m));
    }
    const log = buildLog(records(300));
    await expect(provenPrefixRoot({ size: 300, hash: log.root }, 301, reader(log.tiles))).rejects.toThrow(
      'a tree of 301 records is not a prefix of the signed tree of 300 records',
    );
  });

  it('refuses tiles that do not hash to the signed root, tiles of the wrong size and records beyond the tree', async () => {
    const log = buildLog(records(300));
    const head = { size: 300, hash: log.root };
    const tampered = new Map(log.tiles);
    const tile = Buffer.from(tampered.get('tile/8/0/001.p/44')!);
    tile[5] = tile[5]! ^ 1;
    tampered.set('tile/8/0/001.p/44', tile);
    await expect(provenLeafHash(head, 3, reader(tampered))).rejects.toThrow(
      /its tiles \(.*tile\/8\/0\/001\.p\/44.*\) do not hash to the root of the signed tree of 300 records/,
    );
    const short = new Map(log.tiles);
    short.set('tile/8/0/000', log.tiles.get('tile/8/0/000')!.subarray(0, 100));
    await expect(provenLeafHash(head, 3, reader(short))).rejects.toThrow('tile tile/8/0/000 has 100 bytes, not 8192');
    await expect(provenLeafHash(head, 300, reader(log.tiles))).rejects.toThrow(TreeMismatchError);
    await expect(
      provenLeafHash({ size: 300, hash: buildLog(records(301)).root }, 3, reader(log.tiles)),
    ).rejects.toThrow(TreeMismatchError);
  });
});
