/**
 * What `go get <module>@latest` resolves to, from the module proxy alone: the highest release
 * version of `@v/list` (semantic version precedence), else its highest pre-release, else the
 * proxy's `@latest` (a pseudo-version of the newest commit, for a module that has no tags).
 * Pseudo-versions in the list, versions whose major does not fit the path (`/v2` serves v2.x.y
 * only) and, when a compatible version exists, `+incompatible` ones are passed over, as are the
 * versions the module retracts in the go.mod of its highest version.
 */
import { KopError } from '../../base/index.js';

/** A semantic version with Go's `v` prefix: major, minor, patch, pre-release, build. */
const SEMVER =
  /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;
/** A pseudo-version (golang.org/x/mod/module): a 14-digit UTC time and a 12-character commit prefix. */
const PSEUDO = /^v\d+\.(?:0\.0-|\d+\.\d+-(?:[^+]*\.)?0\.)\d{14}-[A-Za-z0-9]+(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** Compares two numeric strings without leading zeros. */
function compareNumeric(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Semantic version precedence of two valid versions (build metadata, `+incompatible` too, is ignored). */
export function compareVersions(a: string, b: string): number {
  const x = SEMVER.exec(a);
  const y = SEMVER.exec(b);
  if (x === null || y === null) throw new Error(`not semantic versions: ${a}, ${b}`);
  for (let i = 1; i <= 3; i++) {
    const c = compareNumeric(x[i]!, y[i]!);
    if (c !== 0) return c;
  }
  const [p, q] = [x[4], y[4]];
  if (p === undefined || q === undefined) return p === q ? 0 : p === undefined ? 1 : -1;
  const [ps, qs] = [p.split('.'), q.split('.')];
  for (let i = 0; i < Math.min(ps.length, qs.length); i++) {
    const [u, v] = [ps[i]!, qs[i]!];
    const [un, vn] = [/^\d+$/.test(u), /^\d+$/.test(v)];
    const c = un && vn ? compareNumeric(u, v) : un ? -1 : vn ? 1 : u < v ? -1 : u > v ? 1 : 0;
    if (c !== 0) return c;
  }
  return ps.length - qs.length;
}

/** Whether `version` may be a version of `modulePath`: `/vN` (or gopkg.in's `.vN`) paths take major N only. */
function fitsPath(modulePath: string, version: string): boolean {
  const major = Number(SEMVER.exec(version)![1]);
  const incompatible = version.endsWith('+incompatible');
  const suffix =
    /\/v(\d+)$/.exec(modulePath) ??
    (/^gopkg\.in\//.test(modulePath) ? /\.v(\d+)(?:-unstable)?$/.exec(modulePath) : null);
  if (suffix !== null) {
    const wanted = Number(suffix[1]);
    return !incompatible && (major === wanted || (modulePath.startsWith('gopkg.in/') && wanted <= 1 && major <= 1));
  }
  return incompatible ? major >= 2 : major <= 1;
}

/** A retracted version or closed range `[low, high]`. */
export interface Retraction {
  low: string;
  high: string;
}

/** The `retract` directives of a go.mod: single versions, `[low, high]` ranges, and `retract ( ... )` blocks. */
export function parseRetractions(goMod: string): Retraction[] {
  const result: Retraction[] = [];
  let inBlock = false;
  for (const raw of goMod.split('\n')) {
    let line = raw.replace(/\/\/.*$/, '').trim();
    if (inBlock) {
      if (line === ')') {
        inBlock = false;
        continue;
      }
    } else {
      const match = /^retract\b\s*(.*)$/.exec(line);
      if (match === null) continue;
      line = match[1]!.trim();
      if (line === '(') {
        inBlock = true;
        continue;
      }
    }
    const unquote = (v: string) => v.trim().replace(/^"(.*)"$/, '$1');
    const range = /^\[([^,\]]+),([^\]]+)\]$/.exec(line);
    if (range !== null) result.push({ low: unquote(range[1]!), high: unquote(range[2]!) });
    else if (line !== '') result.push({ low: unquote(line), high: unquote(line) });
  }
  return result.filter((r) => SEMVER.test(r.low) && SEMVER.test(r.high));
}

function isRetracted(version: string, retractions: readonly Retraction[]): boolean {
  return retractions.some((r) => compareVersions(r.low, version) <= 0 && compareVersions(version, r.high) <= 0);
}

/** How the resolver reads the proxy: each returns the body, or undefined when the proxy has no such file. */
export interface LatestSources {
  list(): Promise<string>;
  latest(): Promise<string | undefined>;
  goMod(version: string): Promise<string>;
}

/** The version `modulePath@latest` means, by the rules above. */
export async function resolveLatestVersion(modulePath: string, sources: LatestSources): Promise<string> {
  const listed = (await sources.list())
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((v) => SEMVER.test(v) && !PSEUDO.test(v) && fitsPath(modulePath, v));
  const compatible = listed.filter((v) => !v.endsWith('+incompatible'));
  const candidates = compatible.length > 0 ? compatible : listed;
  const highest = (versions: readonly string[]): string | undefined => {
    const releases = versions.filter((v) => SEMVER.exec(v)![4] === undefined);
    const pool = releases.length > 0 ? releases : versions;
    return pool.length === 0 ? undefined : pool.reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b));
  };
  let top = highest(candidates);
  if (top === undefined) {
    const latest = await sources.latest();
    if (latest === undefined || !SEMVER.test(latest))
      throw new KopError(
        `${modulePath}: the module proxy has no version of it`,
        'check the module path, or pass a version (@v1.2.3)',
      );
    top = latest;
  }
  // Retractions are read from the go.mod of the highest version, retracted or not, as the go command does.
  const retractions = parseRetractions(await sources.goMod(top));
  if (!isRetracted(top, retractions)) return top;
  const kept = highest(candidates.filter((v) => !isRetracted(v, retractions)));
  if (kept === undefined)
    throw new KopError(
      `${modulePath}: every version the module proxy lists is retracted by ${top}'s go.mod`,
      'pass the version you mean (@v1.2.3)',
    );
  return kept;
}
