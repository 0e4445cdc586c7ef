import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt, sharedPackEnv } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';
import {
  KOP_BIN,
  formatTable,
  groupFailures,
  runKubebuilderScript,
  type ScriptResult,
} from '../kubebuilder-testdata/run-script.mjs';
import { PROJECT_NAMES, type ProjectName } from '../kubebuilder-testdata/scripts.mjs';

/**
 * Kubebuilder's own testdata script (test/testdata/generate.sh), translated command for command
 * (test/kubebuilder-testdata/scripts.mjs) and run with the built kop: every command succeeds as
 * Kubebuilder spells it; the make steps' kop equivalents (`kop generate`, `npm run build`,
 * `kop build-installer`) and the project's `npm test` pass; and PROJECT records the resources
 * Kubebuilder's testdata PROJECT has (test/kubebuilder-testdata/expected/).
 * `node hack/kubebuilder-testdata.mjs` runs the same scripts and prints the table.
 */
const results = new Map<ProjectName, ScriptResult>();

/**
 * Per project: its commands, generate/build/build-installer and its own `npm test` (control planes
 * of its own). Measured on a shared 2-core machine: project-v4 about 105 s (npm test 88 s),
 * project-v4-multigroup about 120 s (npm test 90 s), project-v4-with-plugins about 40 s (npm test
 * 25 s): about 4.5 min for the three, npm test most of it. The limit leaves room for a slower CI,
 * and for two scripts at a time (see startScript).
 */
const PROJECT_TIMEOUT_MS = 600_000;

const scripts = new Map<ProjectName, Promise<ScriptResult>>();

/**
 * Starts a project's script once. Each block starts its own and the next project's, so two run at a
 * time: a script runs one command after another, and its `npm test` is one vitest worker beside its
 * control plane, so a script alone leaves the second core mostly idle.
 */
function startScript(projectName: ProjectName): Promise<ScriptResult> {
  let script = scripts.get(projectName);
  if (script === undefined) {
    script = runKubebuilderScript(projectName, { env: sharedPackEnv(), tsc });
    // Awaited by its own block, or by the afterAll below when that block is filtered out.
    script.catch(() => undefined);
    scripts.set(projectName, script);
  }
  return script;
}

const failedCommands = (result: ScriptResult) =>
  result.commands
    .filter((c) => !c.ok)
    .map((c) => `${c.argv.join(' ')}\n    ${c.firstError}`)
    .join('\n');

describe.each(PROJECT_NAMES.map((name) => [name] as const))("Kubebuilder's testdata script for %s", (projectName) => {
  beforeAll(async () => {
    requireBuilt();
    const script = startScript(projectName);
    const next = PROJECT_NAMES[PROJECT_NAMES.indexOf(projectName) + 1];
    if (next !== undefined) void startScript(next);
    results.set(projectName, await script);
  }, PROJECT_TIMEOUT_MS);

  it('runs every command as Kubebuilder spells it', () => {
    const result = results.get(projectName)!;
    expect(result.bootstrap, 'kop init refused flags of the script').toEqual([]);
    expect(failedCommands(result)).toBe('');
  });

  it('generates, builds, builds the installer and passes its tests', () => {
    const result = results.get(projectName)!;
    const failed = result.steps.filter((s) => !s.ok).map((s) => `${s.name}: ${s.firstError}`);
    expect(failed).toEqual([]);
    // `make all` as kop generate + npm run build, `make build-installer`, then the project's npm test: each ran.
    expect(result.steps.map((s) => s.name)).toEqual(
      expect.arrayContaining(['generate', 'build', 'build-installer', 'test']),
    );
  });

  it("records in PROJECT the resources Kubebuilder's PROJECT has", () => {
    expect(results.get(projectName)!.projectDifferences).toEqual([]);
  });
});

afterAll(async () => {
  // A script started for a block that did not run (filtered out) ends before the file does.
  await Promise.allSettled(scripts.values());
  // The table the lead reads: which commands pass, per project.
  if (results.size > 0) {
    const all = [...results.values()];
    const failures = groupFailures(all).map(({ message, where }) => `${where.length} × ${message}`);
    console.log(`${formatTable(all)}\n${failures.join('\n')}`);
  }
}, PROJECT_TIMEOUT_MS);

/** Every file under `dir` (node_modules aside) with a hash of its content. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (sub: string): Promise<void> => {
    for (const entry of await readdir(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.join(sub, entry.name);
      if (entry.name === 'node_modules') continue;
      if (entry.isDirectory()) await walk(rel);
      else
        files[rel] = createHash('sha256')
          .update(await readFile(path.join(dir, rel)))
          .digest('hex');
    }
  };
  await walk('.');
  return files;
}

const kop = (args: readonly string[], cwd: string) =>
  execa('node', [KOP_BIN, ...args], {
    cwd,
    reject: false,
    stdin: 'ignore',
    env: { NO_COLOR: '1', CI: 'true', ...sharedPackEnv() },
  });

describe('bad input from Kubebuilder command lines: a clear error, nothing written', () => {
  let parent: string;
  let project: string;

  beforeAll(async () => {
    requireBuilt();
    parent = await mkdtemp(path.join(tmpdir(), 'kop-kb-bad-input-'));
    project = path.join(parent, 'project-v4');
    await mkdir(project);
    const init = await kop(
      [
        'init',
        '--domain',
        'testproject.org',
        '--license',
        'apache2',
        '--owner',
        'The Kubernetes authors',
        '--skip-install',
      ],
      project,
    );
    expect(init.exitCode, init.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  const cases: Array<{ name: string; args: string[]; says: RegExp[] }> = [
    {
      name: '--image without the deploy-image plugin',
      args: [
        'create',
        'api',
        '--group',
        'example.com',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--image=memcached:1.6.26-alpine3.19',
        '--make=false',
      ],
      says: [/--image/, /deploy-image/],
    },
    {
      name: 'an unknown plugin (create api)',
      args: [
        'create',
        'api',
        '--group',
        'crew',
        '--version',
        'v1',
        '--kind',
        'Sailor',
        '--plugins=nope.example.com/v1',
        '--make=false',
      ],
      says: [/--plugins/, /unknown plugin "nope\.example\.com\/v1"/],
    },
    {
      name: 'an unknown plugin (edit)',
      args: ['edit', '--plugins=nope.example.com/v1'],
      says: [/--plugins/, /unknown plugin "nope\.example\.com\/v1"/],
    },
    {
      name: '--external-api-domain without --external-api-path',
      args: [
        'create',
        'api',
        '--group',
        'cert-manager',
        '--version',
        'v1',
        '--kind',
        'Certificate',
        '--controller=true',
        '--resource=false',
        '--make=false',
        '--external-api-domain=io',
      ],
      says: [/--external-api-path/],
    },
    {
      name: "a Go module without a CRD of the kind (Kubebuilder's cert-manager line, another kind)",
      args: [
        'create',
        'api',
        '--group',
        'cert-manager',
        '--version',
        'v1',
        '--kind',
        'Keystore',
        '--controller=true',
        '--resource=false',
        '--make=false',
        '--external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
        '--external-api-domain=io',
        '--external-api-module=github.com/cert-manager/cert-manager@v1.20.2',
      ],
      says: [
        /github\.com\/cert-manager\/cert-manager@v1\.20\.2: no CustomResourceDefinition of Keystore in group cert-manager\.io among its \d+ \.yaml/,
        /its CRDs are .*Certificate cert-manager\.io/,
      ],
    },
  ];

  it.each(cases)('$name', async ({ args, says }) => {
    const before = await snapshot(project);
    const result = await kop(args, project);
    expect(result.exitCode).not.toBe(0);
    for (const pattern of says) expect(result.stderr).toMatch(pattern);
    expect(await snapshot(project)).toEqual(before);
  });

  it('a controller name the kind already has', async () => {
    const first = await kop(
      [
        'create',
        'api',
        '--group',
        'crew',
        '--version',
        'v1',
        '--kind',
        'Captain',
        '--controller=true',
        '--resource=true',
        '--make=false',
        '--controller-name=captain',
      ],
      project,
    );
    expect(first.exitCode, first.stderr).toBe(0);
    const before = await snapshot(project);
    const again = await kop(
      [
        'create',
        'api',
        '--group',
        'crew',
        '--version',
        'v1',
        '--kind',
        'Captain',
        '--controller=true',
        '--resource=false',
        '--make=false',
        '--controller-name=captain',
      ],
      project,
    );
    expect(again.exitCode).not.toBe(0);
    expect(again.stderr).toMatch(/--controller-name/);
    expect(again.stderr).toMatch(/captain/);
    expect(await snapshot(project)).toEqual(before);
  });

  it('an unknown plugin at init writes nothing in the empty folder', async () => {
    const empty = path.join(parent, 'empty');
    await mkdir(empty);
    const result = await kop(
      ['init', '--plugins=nope.example.com/v1', '--domain', 'testproject.org', '--skip-install'],
      empty,
    );
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/unknown plugin "nope\.example\.com\/v1"/);
    expect(await readdir(empty)).toEqual([]);
  });
});
