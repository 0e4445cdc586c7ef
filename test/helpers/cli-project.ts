import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { expect, inject } from 'vitest';

/** The kop package root (this checkout). */
export const KOP_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The built CLI, as users run it. */
export const KOP_BIN = path.join(KOP_ROOT, 'bin/kop.js');

/** Fails fast, naming the fix, when `npm run build` has not produced `files` (paths under the kop root). */
export function requireBuilt(files: readonly string[] = ['dist/cli/main.js']): void {
  for (const built of files) {
    if (!existsSync(path.join(KOP_ROOT, built)))
      throw new Error(`${built} is missing: run \`npm run build\` before the end-to-end tests`);
  }
}

/**
 * The environment for a `kop init` the test runs: in the e2e project, with the run's one packed kop
 * ahead on PATH (test/helpers/e2e-global-setup.ts), so init copies that tarball instead of packing
 * kop again; elsewhere, the process's own.
 */
export function sharedPackEnv(): { PATH?: string } {
  const bin = inject('sharedPackBin') as string | undefined;
  return bin === undefined ? {} : { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
}

/**
 * In the e2e project, the run's one packed kop unpacked as npm installs it, under a node_modules
 * (test/helpers/e2e-global-setup.ts): what a project links as node_modules/kop, so its vitest loads
 * kop as Node does rather than transforming a linked checkout in every test file. Elsewhere undefined.
 */
export function sharedKop(): string | undefined {
  return inject('sharedKop') as string | undefined;
}

/** A project made by the built `kop init` in a fresh temp folder. */
export interface CliProject {
  /** The temp folder holding the project; delete it when done. */
  parent: string;
  /** The project folder, `<parent>/<name>`. */
  project: string;
}

/**
 * Runs the built `kop init --domain example.com --project-name <name> --owner Demo --skip-install --yes <extraInitArgs>`
 * in `<new temp folder>/<name>` and links kop's own dependencies (typescript, vitest, @types/node, ...)
 * and kop itself into its node_modules, so the project builds and tests without a registry. The
 * tarball init puts in `.kop/` is the run's one `npm pack` of kop (sharedPackEnv), and kop is that
 * pack unpacked (sharedKop; a link to this checkout outside the e2e project).
 */
export async function initLinkedProject(
  name: string,
  tempPrefix: string,
  extraInitArgs: readonly string[] = [],
): Promise<CliProject> {
  requireBuilt();
  const parent = await mkdtemp(path.join(tmpdir(), tempPrefix));
  const project = path.join(parent, name);
  await mkdir(project);
  const init = await execa(
    'node',
    [
      KOP_BIN,
      'init',
      '--domain',
      'example.com',
      '--project-name',
      name,
      '--owner',
      'Demo',
      '--skip-install',
      '--yes',
      ...extraInitArgs,
    ],
    {
      cwd: project,
      reject: false,
      stdin: 'ignore',
      env: { NO_COLOR: '1', CI: 'true', ...sharedPackEnv() },
    },
  );
  expect(init.exitCode, init.stderr).toBe(0);
  await mkdir(path.join(project, 'node_modules'));
  for (const entry of await readdir(path.join(KOP_ROOT, 'node_modules'))) {
    if (entry !== '.cache' && entry !== '.bin')
      await symlink(path.join(KOP_ROOT, 'node_modules', entry), path.join(project, 'node_modules', entry), 'dir');
  }
  await symlink(sharedKop() ?? KOP_ROOT, path.join(project, 'node_modules/kop'), 'dir');
  // As npm install would make it: kop's own tools, plus the `kop` command the project's scripts run.
  const bin = path.join(project, 'node_modules/.bin');
  await mkdir(bin);
  for (const tool of await readdir(path.join(KOP_ROOT, 'node_modules/.bin')))
    await symlink(path.join(KOP_ROOT, 'node_modules/.bin', tool), path.join(bin, tool));
  await symlink(KOP_BIN, path.join(bin, 'kop'));
  return { parent, project };
}

/**
 * A generated project's dependencies: kop as `spec` says, and the OpenTelemetry SDK that its
 * src/tracing.ts loads when an OTLP endpoint is set; nothing else.
 */
export function expectScaffoldDependencies(dependencies: Record<string, string>, spec: string): void {
  expect(dependencies.kop).toBe(spec);
  expect(Object.keys(dependencies).filter((name) => name !== 'kop' && !name.startsWith('@opentelemetry/'))).toEqual([]);
}
