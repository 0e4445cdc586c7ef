/**
 * A Go module version, fetched from the module proxy without the Go toolchain: `.info` (the
 * version exists; `@latest` or none is resolved first, latest-version.ts), `.mod` (its go.mod
 * names the module) and `.zip`, whose `h1:` hash must match the project's go.sum line for it,
 * else the checksum database's record (GOSUMDB), as the go command requires. A module GONOSUMDB
 * (or GOPRIVATE) matches, GOSUMDB=off or GOFLAGS=-insecure is taken unverified, with a warning:
 * these are Go's own ways of saying so, and a user who set them for `go get` means the same
 * here. A module GONOPROXY (or GOPRIVATE) matches comes from version control in Go, which kop
 * refuses. Verified zips are cached under
 * `${XDG_CACHE_HOME:-~/.cache}/kop/gomod/<module>/@v/<version>.zip`, keyed by module and
 * version, with their hash and how it was checked beside them (`.ziphash.json`); each file is
 * written whole or not at all.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { KopError } from '../../base/index.js';
import { hashGoMod, hashZip } from './dirhash.js';
import { insecureFlag, readGoEnv, type GoEnv } from './go-env.js';
import { ModuleNotFoundError, parseGoProxy, proxyGet, type Fetcher, type ProxyEntry } from './go-proxy.js';
import { resolveLatestVersion } from './latest-version.js';
import { escapeModulePath, matchesGlobList, parseModuleVersion } from './module-path.js';
import { lookupSumDb, parseGoSumDb, SumDbUnreachableError } from './sumdb.js';
import { readZip, type ZipEntry } from './zip-reader.js';

/** How a fetched module's hash was checked. */
export type Verification = 'go.sum' | 'checksum database' | 'unverified';

/** A module version's files, with where its hash was checked. */
export interface FetchedModule {
  path: string;
  version: string;
  /** The `h1:` hash of its zip. */
  hash: string;
  /** Its files, named `<path>@<version>/<file>` as in the zip. */
  entries: ZipEntry[];
  verification: Verification;
  /** Name of the checksum database, when it verified the hash. */
  sumDb?: string;
  fromCache: boolean;
}

export interface FetchGoModuleOptions {
  /** The project folder: its go.sum, if any, is checked first. */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Default `${XDG_CACHE_HOME:-~/.cache}/kop/gomod`. */
  cacheDir?: string;
  fetcher?: Fetcher;
  warn(message: string): void;
}

/** The default cache folder of fetched modules. */
export function goModuleCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(env.HOME || homedir(), '.cache'), 'kop', 'gomod');
}

const defaultFetcher: Fetcher = (url) => fetch(url, { signal: AbortSignal.timeout(120_000), redirect: 'follow' });

/** Fetches (or reads from the cache) and verifies `given` (`path@version`, `path@latest` or `path`). */
export async function fetchGoModule(given: string, options: FetchGoModuleOptions): Promise<FetchedModule> {
  const env = options.env ?? process.env;
  const goEnv = readGoEnv(env);
  const fetcher = options.fetcher ?? defaultFetcher;
  const proxies = parseGoProxy(goEnv.GOPROXY);
  const wanted = parseModuleVersion(given);
  refuseNoProxy(goEnv, wanted.path);
  const modulePath = wanted.path;
  const version = wanted.version ?? (await latestVersion(proxies, modulePath, fetcher));
  const cacheDir = options.cacheDir ?? goModuleCacheDir(env);
  const base = path.join(cacheDir, ...escapeModulePath(modulePath).split('/'), '@v', escapeModulePath(version));
  const goSum = await readGoSum(options.cwd, modulePath, version);
  const needsDatabase = sumDbApplies(goEnv, modulePath);

  const cached = await readCache(base, given);
  if (cached !== undefined && (cached.verification !== 'unverified' || !needsDatabase || goSum.zip !== undefined)) {
    const verification = checkGoSum(goSum.zip, cached.hash, given) ? 'go.sum' : cached.verification;
    return { path: modulePath, version, ...cached, verification, fromCache: true };
  }

  const info = JSON.parse(
    (await proxyGet(proxies, modulePath, `@v/${escapeModulePath(version)}.info`, fetcher)).toString('utf8'),
  ) as { Version?: string };
  if (info.Version !== version)
    throw new KopError(
      `${modulePath}@${version}: the proxy knows it as ${String(info.Version)}`,
      `pass @${String(info.Version)}`,
    );
  const goMod = await proxyGet(proxies, modulePath, `@v/${escapeModulePath(version)}.mod`, fetcher);
  const declared = /^\s*module\s+"?([^\s"]+)"?/m.exec(goMod.toString('utf8'))?.[1];
  if (declared !== modulePath)
    throw new KopError(
      `${modulePath}@${version}: its go.mod declares module ${declared ?? '(none)'}`,
      declared === undefined ? undefined : `pass --external-api-module ${declared}@${version}`,
    );
  const zip = await proxyGet(proxies, modulePath, `@v/${escapeModulePath(version)}.zip`, fetcher);
  const where = `${modulePath}@${version}.zip`;
  const entries = readZip(zip, where);
  const prefix = `${modulePath}@${version}/`;
  const stray = entries.find((e) => !e.name.startsWith(prefix) || e.name.split('/').includes('..'));
  if (stray !== undefined) throw new KopError(`${where}: not a valid module zip (${stray.name} is outside ${prefix})`);
  const hash = hashZip(entries);

  let verification: Verification;
  let sumDb: string | undefined;
  if (checkGoSum(goSum.zip, hash, given)) {
    checkGoSum(goSum.mod, hashGoMod(goMod), `${given}/go.mod`);
    verification = 'go.sum';
  } else if (needsDatabase) {
    const db = parseGoSumDb(goEnv.GOSUMDB)!;
    let record;
    try {
      // The last tree head seen is kept beside the modules, so the next lookup checks the log only grew.
      record = await lookupSumDb(db, modulePath, version, proxies, fetcher, path.join(cacheDir, 'sumdb', db.name));
    } catch (error) {
      if (!(error instanceof SumDbUnreachableError)) throw error;
      throw new KopError(
        `${modulePath}@${version}: cannot verify its checksum: ${error.message}; nothing was written`,
        `add its line to the project's go.sum (${modulePath} ${version} ${hash}, once you have checked it), or accept it unverified with GONOSUMDB=${modulePath}`,
      );
    }
    mismatch(record.zipHash, hash, given, db.name);
    mismatch(record.goModHash, hashGoMod(goMod), `${given}/go.mod`, db.name);
    verification = 'checksum database';
    sumDb = db.name;
  } else {
    verification = 'unverified';
    const why =
      goEnv.GOSUMDB.trim() === 'off'
        ? 'GOSUMDB=off'
        : insecureFlag(goEnv)
          ? 'GOFLAGS=-insecure'
          : 'GONOSUMDB/GOPRIVATE';
    options.warn(`${modulePath}@${version}: its checksum was not verified (${why}); its hash is ${hash}`);
  }
  await writeCache(base, zip, `${JSON.stringify({ hash, verification, ...(sumDb === undefined ? {} : { sumDb }) })}\n`);
  return { path: modulePath, version, hash, entries, verification, sumDb, fromCache: false };
}

/** Whether the checksum database is to be asked about `modulePath`. */
function sumDbApplies(goEnv: GoEnv, modulePath: string): boolean {
  return (
    parseGoSumDb(goEnv.GOSUMDB) !== undefined && !matchesGlobList(goEnv.GONOSUMDB, modulePath) && !insecureFlag(goEnv)
  );
}

/** The version `@latest` means, read from the proxies of GOPROXY (latest-version.ts has the rules). */
async function latestVersion(proxies: readonly ProxyEntry[], modulePath: string, fetcher: Fetcher): Promise<string> {
  const get = async (suffix: string) => (await proxyGet(proxies, modulePath, suffix, fetcher)).toString('utf8');
  return resolveLatestVersion(modulePath, {
    list: async () => {
      try {
        return await get('@v/list');
      } catch (error) {
        // A module without tags may have no list: then @latest names its newest commit.
        if (error instanceof ModuleNotFoundError) return '';
        throw error;
      }
    },
    latest: async () => {
      let info: { Version?: unknown };
      try {
        info = JSON.parse(await get('@latest')) as typeof info;
      } catch (error) {
        if (error instanceof SyntaxError) throw new KopError(`${modulePath}: the module proxy's @latest is not JSON`);
        throw error;
      }
      return typeof info.Version === 'string' ? info.Version : undefined;
    },
    goMod: async (version) =>
      (await proxyGet(proxies, modulePath, `@v/${escapeModulePath(version)}.mod`, fetcher)).toString('utf8'),
  });
}

/**
 * `path@version` as given, or with `@latest` (or no version) resolved through the module proxy:
 * what a project records, so that running the command again fetches the same module.
 */
export async function resolveGoModuleVersion(
  given: string,
  options: Pick<FetchGoModuleOptions, 'env' | 'fetcher'>,
): Promise<{ path: string; version: string }> {
  const wanted = parseModuleVersion(given);
  if (wanted.version !== undefined) return { path: wanted.path, version: wanted.version };
  const goEnv = readGoEnv(options.env ?? process.env);
  refuseNoProxy(goEnv, wanted.path);
  const version = await latestVersion(parseGoProxy(goEnv.GOPROXY), wanted.path, options.fetcher ?? defaultFetcher);
  return { path: wanted.path, version };
}

/** GONOPROXY (GOPRIVATE by default) sends a module to version control, whatever GOPROXY says: kop stops there. */
function refuseNoProxy(goEnv: GoEnv, modulePath: string): void {
  if (matchesGlobList(goEnv.GONOPROXY, modulePath))
    throw new KopError(
      `${modulePath}: GONOPROXY${goEnv.GONOPROXY === goEnv.GOPRIVATE ? ' (from GOPRIVATE)' : ''} says the go command fetches it from version control ("direct"), not from a module proxy, and kop does not fetch from version control, which needs the Go toolchain`,
      `if a proxy of GOPROXY serves it, set GONOPROXY=none (GOPRIVATE still keeps it out of the checksum database); else download it with go mod download -json ${modulePath}@<version> and pass the CRD file or folder of its Dir as --external-api-module`,
    );
}

/** The project's go.sum lines for the module version, if it has them. */
async function readGoSum(cwd: string, modulePath: string, version: string): Promise<{ zip?: string; mod?: string }> {
  let text: string;
  try {
    text = await fs.readFile(path.join(cwd, 'go.sum'), 'utf8');
  } catch {
    return {};
  }
  const result: { zip?: string; mod?: string } = {};
  for (const line of text.split('\n')) {
    const [p, v, h] = line.trim().split(/\s+/);
    if (p !== modulePath || h === undefined) continue;
    if (v === version) result.zip = h;
    if (v === `${version}/go.mod`) result.mod = h;
  }
  return result;
}

/** True when go.sum has a line and it matches; a line that does not match is an error. */
function checkGoSum(expected: string | undefined, actual: string, what: string): boolean {
  if (expected === undefined) return false;
  mismatch(expected, actual, what, 'go.sum');
  return true;
}

function mismatch(expected: string, actual: string, what: string, source: string): void {
  if (expected !== actual)
    throw new KopError(
      `${what}: checksum mismatch: downloaded ${actual}, but ${source} has ${expected}; nothing was written`,
      'the download is not the module its publisher released (or go.sum is wrong); do not use it until you know why',
    );
}

async function readCache(
  base: string,
  given: string,
): Promise<{ hash: string; entries: ZipEntry[]; verification: Verification; sumDb?: string } | undefined> {
  let record: { hash?: unknown; verification?: unknown; sumDb?: unknown };
  let zip: Buffer;
  try {
    record = JSON.parse(await fs.readFile(`${base}.ziphash.json`, 'utf8')) as typeof record;
    zip = await fs.readFile(`${base}.zip`);
  } catch {
    return undefined;
  }
  const { hash, verification, sumDb } = record;
  if (typeof hash !== 'string' || !['go.sum', 'checksum database', 'unverified'].includes(verification as string))
    return undefined;
  try {
    const entries = readZip(zip, `${given} (cached in ${base}.zip)`);
    // A cached zip is hashed again: a damaged or edited cache is fetched anew rather than trusted.
    if (hashZip(entries) !== hash) return undefined;
    return {
      hash,
      entries,
      verification: verification as Verification,
      ...(typeof sumDb === 'string' ? { sumDb } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Writes the zip, then its hash: each through a temporary file renamed into place. */
async function writeCache(base: string, zip: Buffer, record: string): Promise<void> {
  await fs.mkdir(path.dirname(base), { recursive: true });
  for (const [file, content] of [
    [`${base}.zip`, zip],
    [`${base}.ziphash.json`, record],
  ] as const) {
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.writeFile(temporary, content);
      await fs.rename(temporary, file);
    } finally {
      await fs.rm(temporary, { force: true });
    }
  }
}
