import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type Context, KopError, UsageError } from '../base/index.js';

/**
 * How a kop project depends on kop. The dependency must resolve on any machine and inside a
 * container build, so it is never an absolute path, a path into npx's cache or the project itself:
 * - `registry`: a semver range (`^0.1.0`), when the running kop came from a registry;
 * - `packed`: kop packed into the project, `file:.kop/kop-<version>.tgz`, committed with it;
 * - `given`: what `--kop-source` said (a registry range or tag, a git URL, a path relative to the project).
 */
export type KopSource =
  { kind: 'registry'; spec: string } | { kind: 'packed'; spec: string; file: string } | { kind: 'given'; spec: string };

/** The folder of the project that holds kop's tarball. */
export const PACK_DIR = '.kop';

/** True for a spec naming a tarball in the project's `.kop/` folder (the Dockerfile copies that folder). */
export function isPackedSpec(spec: string): boolean {
  return /^file:(\.\/)?\.kop\/kop-[^/\\]+\.tgz$/.test(spec);
}

/** The file-system path a dependency spec names (`file:x`, `./x`, `../x`, `/x`, `~/x`), or undefined for other specs. */
export function localPathOf(spec: string): string | undefined {
  if (spec.startsWith('file:')) return spec.slice('file:'.length);
  return /^(\.{1,2}(\/|$)|\/|~)/.test(spec) ? spec : undefined;
}

const SOURCE_HINT =
  'leave --kop-source out: kop packs itself into .kop/kop-<version>.tgz and the project depends on that file; or give a registry range (e.g. ^0.1.0) or a path relative to the project';

/**
 * Checks a kop dependency spec for a project in `projectDir`: an npm spec on one line, and when it
 * is a path, one relative to the project that is neither the project nor inside its node_modules.
 * Returns the reason a spec is refused, or undefined.
 */
export function kopSourceProblem(spec: string, projectDir: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (spec.trim() === '' || /[\u0000-\u001f\u007f]/.test(spec))
    return 'it is not an npm dependency spec (e.g. ^0.1.0, github:owner/kop, file:../kop)';
  const local = localPathOf(spec);
  if (local === undefined) return undefined;
  if (path.isAbsolute(local) || local.startsWith('~') || local.startsWith('//')) {
    return 'an absolute path exists on this machine only, so the project would not install anywhere else (another machine, CI, a container build)';
  }
  const target = path.resolve(projectDir, local);
  const fromProject = path.relative(projectDir, target);
  if (fromProject === '') return 'it names the project itself, and a package cannot depend on itself';
  if (fromProject === 'node_modules' || fromProject.startsWith(`node_modules${path.sep}`)) {
    return "it names the project's own node_modules, which npm install replaces";
  }
  return undefined;
}

/** Refuses `--kop-source` specs that would not install anywhere else; see `kopSourceProblem`. */
export function checkGivenKopSource(spec: string, projectDir: string): void {
  const problem = kopSourceProblem(spec, projectDir);
  if (problem !== undefined) throw new UsageError(`--kop-source ${JSON.stringify(spec)}: ${problem}`, SOURCE_HINT);
}

/** An entry of npm's lockfile (`packages["node_modules/kop"]`). */
interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
}

/**
 * Whether the kop at `kopRoot` was installed from a package registry, read from the lockfile npm
 * keeps in every node_modules it writes (`node_modules/.package-lock.json`). A registry install
 * records the registry's tarball URL, or no URL at all under `omit-lockfile-registry-resolved`;
 * anything else (a clone, a tarball, a link, npx of a tarball, a global install, which keeps no
 * lockfile) is not proven to come from a registry.
 */
export async function installedFromRegistry(kopRoot: string): Promise<boolean> {
  for (let dir = path.dirname(kopRoot); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (path.basename(dir) !== 'node_modules') continue;
    let lock: { packages?: Record<string, LockEntry> };
    try {
      lock = JSON.parse(await readFile(path.join(dir, '.package-lock.json'), 'utf8')) as typeof lock;
    } catch {
      continue;
    }
    const key = path.relative(path.dirname(dir), kopRoot).split(path.sep).join('/');
    const entry = lock.packages?.[key];
    if (entry === undefined) continue;
    if (entry.link === true) return false;
    if (entry.resolved === undefined) return entry.integrity !== undefined && entry.version !== undefined;
    return /^https?:\/\/[^\s]+\/kop\/-\/kop-[^/]+\.tgz$/.test(entry.resolved);
  }
  return false;
}

/** A kop packed by `npm pack`: its file name (`kop-<version>.tgz`) and bytes. */
export interface PackedKop {
  filename: string;
  bytes: Uint8Array;
}

/**
 * Packs the kop at `kopRoot` with `npm pack` (what npm itself would install from it: the
 * package.json `files`, nothing else) into a temporary folder, and returns the tarball.
 * npm writes tarballs with fixed timestamps, so packing the same kop twice gives the same bytes.
 */
export async function packKop(kopRoot: string, exec: Context['exec']): Promise<PackedKop> {
  const destination = await mkdtemp(path.join(tmpdir(), 'kop-pack-'));
  try {
    const result = await exec('npm', [
      'pack',
      kopRoot,
      '--pack-destination',
      destination,
      '--json',
      '--ignore-scripts',
      '--loglevel=error',
    ]);
    if (result.exitCode !== 0) {
      throw new KopError(
        `npm pack ${kopRoot} failed with exit code ${result.exitCode}${result.stderr.trim() ? `: ${result.stderr.trim()}` : ''}`,
        'kop packs itself into the project so it installs anywhere; fix npm, or pass --kop-source <registry range>',
      );
    }
    let filename: string | undefined;
    try {
      filename = (JSON.parse(result.stdout) as { filename?: string }[])[0]?.filename;
    } catch {
      filename = undefined;
    }
    if (filename === undefined || !/^kop-[^/\\]+\.tgz$/.test(filename)) {
      throw new KopError(
        `npm pack ${kopRoot} did not report a kop-<version>.tgz tarball (it printed ${JSON.stringify(result.stdout.slice(0, 200))})`,
      );
    }
    return { filename, bytes: new Uint8Array(await readFile(path.join(destination, filename))) };
  } finally {
    await rm(destination, { recursive: true, force: true });
  }
}
