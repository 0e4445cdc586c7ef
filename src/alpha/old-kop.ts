import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type Context, KopError, UsageError, kopPackageRoot } from '../base/index.js';
import { PACK_DIR } from '../init/index.js';
import type { KopInstallation } from './replay.js';

/** A kop ready to run, and how to clean up after it. */
export interface OldKop extends KopInstallation {
  /** Removes what was unpacked for it. */
  dispose(): Promise<void>;
}

async function packageVersion(root: string): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
      name?: string;
      version?: string;
    };
    return manifest.name === 'kop' ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The node_modules folder an unpacked kop takes its dependencies from: the project's when it has
 * kop's dependencies installed (it installed that kop), else the one this kop runs with.
 */
function dependencyFolder(projectDir: string): string {
  const projectModules = path.join(projectDir, 'node_modules');
  if (existsSync(path.join(projectModules, 'commander')) && existsSync(path.join(projectModules, 'handlebars')))
    return projectModules;
  const resolved = createRequire(path.join(kopPackageRoot(), 'package.json')).resolve('commander');
  const parts = resolved.split(path.sep);
  return parts.slice(0, parts.lastIndexOf('node_modules') + 1).join(path.sep);
}

/** Unpacks a kop tarball (made by npm pack) into a temporary folder with its dependencies linked in. */
async function unpack(tarball: string, projectDir: string, context: Context): Promise<OldKop> {
  const dir = await mkdtemp(path.join(tmpdir(), 'kop-old-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    const result = await context.exec('tar', ['-xzf', tarball, '-C', dir]);
    if (result.exitCode !== 0)
      throw new KopError(`cannot unpack ${tarball}: tar exited with code ${result.exitCode}: ${result.stderr.trim()}`);
    const root = path.join(dir, 'package');
    const version = await packageVersion(root);
    if (version === undefined || !existsSync(path.join(root, 'bin/kop.js')))
      throw new KopError(`${tarball} is not a kop package (no package.json named kop with bin/kop.js)`);
    await symlink(dependencyFolder(projectDir), path.join(dir, 'node_modules'), 'dir');
    return { root, version, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/**
 * The kop that scaffolded the project, to rebuild its scaffold: `from` (a kop tarball or package
 * folder) when given; else the version `fromVersion` or PROJECT's cliVersion names, found as the
 * tarball `kop update-pack`/`init` packed into `.kop/`, or as the project's installed kop.
 */
export async function findOldKop(
  projectDir: string,
  wanted: { from?: string; version?: string },
  context: Context,
): Promise<OldKop> {
  if (wanted.from !== undefined) {
    const from = path.resolve(context.cwd, wanted.from);
    const info = await stat(from).catch(() => undefined);
    if (info === undefined) throw new UsageError(`--from ${wanted.from}: no such file or folder`);
    if (info.isDirectory()) {
      const version = await packageVersion(from);
      if (version === undefined)
        throw new UsageError(
          `--from ${wanted.from}: the folder is not a kop package (its package.json is not named kop)`,
        );
      if (!existsSync(path.join(from, 'dist/cli/main.js')))
        throw new UsageError(
          `--from ${wanted.from}: kop there is not built (no dist/cli/main.js)`,
          'run npm run build in it',
        );
      return { root: from, version, dispose: async () => {} };
    }
    return unpack(from, projectDir, context);
  }
  const version = wanted.version;
  if (version === undefined) {
    throw new UsageError(
      'PROJECT records no cliVersion, so the kop that scaffolded the project is unknown',
      'pass --from-version <version> (with .kop/kop-<version>.tgz in the project) or --from <kop tarball or folder>',
    );
  }
  const tarball = path.join(projectDir, PACK_DIR, `kop-${version}.tgz`);
  if (existsSync(tarball)) return unpack(tarball, projectDir, context);
  const installed = path.join(projectDir, 'node_modules/kop');
  if ((await packageVersion(installed)) === version && existsSync(path.join(installed, 'dist/cli/main.js'))) {
    return { root: installed, version, dispose: async () => {} };
  }
  throw new KopError(
    `kop ${version}, which scaffolded the project, is neither in ${PACK_DIR}/kop-${version}.tgz nor installed in node_modules/kop`,
    `pass --from <kop-${version}.tgz or a folder of kop ${version}> (e.g. from \`npm pack kop@${version}\`)`,
  );
}
