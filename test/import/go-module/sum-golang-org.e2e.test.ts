/**
 * The checksum database proof against the real sum.golang.org (as GOPROXY and GOSUMDB are set
 * on this machine, so through proxy.golang.org by default): cert-manager v1.20.2's record is proven to be in the signed tree, and the
 * same answer with one tile byte flipped, or with the record's hash changed under the genuine
 * signature, is refused. Skipped with a message when the database cannot be reached, outside CI.
 */
import { describe, expect, it } from 'vitest';
import { readGoEnv } from '../../../src/import/go-module/go-env.js';
import { parseGoProxy } from '../../../src/import/go-module/go-proxy.js';
import type { Fetcher } from '../../../src/import/go-module/go-proxy.js';
import { lookupSumDb, parseGoSumDb } from '../../../src/import/go-module/sumdb.js';
import { reachableOrCi } from './online.js';

const MODULE = 'github.com/cert-manager/cert-manager';
const VERSION = 'v1.20.2';
/** The hashes go.sum files carry for it. */
const ZIP_HASH = 'h1:CimnY00nLqB2lmxhoSuEC4GDMFDK7JCXqyjwMM9ndIQ=';

const goEnv = readGoEnv({ ...process.env, GOSUMDB: 'sum.golang.org' });
// The database is asked through the first proxy of GOPROXY that serves it, as the go command asks it.
const firstProxy = parseGoProxy(goEnv.GOPROXY).find((p) => /^https?:/.test(p.url))?.url;
const online = await reachableOrCi(
  firstProxy === undefined ? 'https://sum.golang.org/latest' : `${firstProxy}/sumdb/sum.golang.org/supported`,
);

describe.skipIf(!online)('sum.golang.org', () => {
  const db = parseGoSumDb(goEnv.GOSUMDB)!;
  const proxies = parseGoProxy(goEnv.GOPROXY);
  const plain: Fetcher = (url) => fetch(url, { signal: AbortSignal.timeout(60_000) });

  it("proves cert-manager's record is in the signed tree", async () => {
    const tiles: string[] = [];
    const record = await lookupSumDb(db, MODULE, VERSION, proxies, (url) => {
      if (url.includes('/tile/')) tiles.push(url);
      return plain(url);
    });
    expect(record.zipHash).toBe(ZIP_HASH);
    expect(record.goModHash).toMatch(/^h1:/);
    // A tree of tens of millions of records: tiles of several levels.
    expect(tiles.some((t) => t.includes('/tile/8/0/'))).toBe(true);
    expect(tiles.some((t) => t.includes('/tile/8/2/'))).toBe(true);
  }, 120_000);

  it('refuses the real answer with a tile byte flipped, or a record the tree does not hold', async () => {
    let flipped = false;
    const tamper: Fetcher = async (url) => {
      const response = await plain(url);
      if (flipped || !url.includes('/tile/8/0/')) return response;
      flipped = true;
      const data = Buffer.from(await response.arrayBuffer());
      data[data.length - 1] = data[data.length - 1]! ^ 1;
      return new Response(data, { status: response.status });
    };
    await expect(lookupSumDb(db, MODULE, VERSION, proxies, tamper)).rejects.toThrow(
      /cert-manager@v1\.20\.2: the checksum database sum\.golang\.org served tiles that do not match its signed tree head/,
    );
    const forge: Fetcher = async (url) => {
      const response = await plain(url);
      if (!url.includes('/lookup/')) return response;
      const text = (await response.text()).replace(ZIP_HASH, 'h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
      return new Response(text, { status: response.status });
    };
    await expect(lookupSumDb(db, MODULE, VERSION, proxies, forge)).rejects.toThrow(
      /cert-manager@v1\.20\.2: the checksum database sum\.golang\.org answered with a record that is not in its signed tree/,
    );
  }, 120_000);
});
