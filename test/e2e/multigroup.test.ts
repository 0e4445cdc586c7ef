import { readFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { initLinkedProject, KOP_BIN, requireBuilt } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * Multigroup end to end, through the built CLI: a project made with Kubebuilder's `init
 * --plugins=go/v4 --multigroup` takes kind Bar in groups foo and fiz, each with a reconciler and
 * a defaulting and validating webhook; and a single-group project with two kinds is turned
 * multigroup and namespaced by `kop edit`. Each then generates, passes its own tests (reconcilers
 * and webhooks against a real apiserver) and `tsc --strict`. Needs `npm run build` and envtest binaries.
 */
const TIMEOUT = 360_000;

describe('multigroup projects end to end', () => {
  const parents: string[] = [];
  afterAll(async () => {
    for (const parent of parents) await rm(parent, { recursive: true, force: true });
  });

  const inProject = (project: string) => {
    const run = (file: string, args: string[]) =>
      execa(file, args, { cwd: project, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
    const kop = async (args: string[]) => {
      const result = await run('node', [KOP_BIN, ...args]);
      expect(result.exitCode, `kop ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
      return result;
    };
    /**
     * kop generate, npm test, tsc --strict: the project as its user checks it. The generate is npm
     * test's pretest (one kop process fewer than running it first), and tsc reads what it generated.
     */
    const verify = async () => {
      const scripts = (
        JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')) as {
          scripts: Record<string, string>;
        }
      ).scripts;
      expect(scripts.pretest).toBe('kop generate');
      const test = await run('npm', ['test']);
      expect(test.exitCode, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).not.toMatch(/skipped/);
      const checked = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
      expect(checked.exitCode, checked.stdout).toBe(0);
      return test.stdout;
    };
    return { run, kop, verify };
  };

  it(
    'init --plugins=go/v4 --multigroup: Bar in foo and in fiz, each with a reconciler and webhooks, generates, type-checks and passes its tests',
    async () => {
      requireBuilt(['dist/cli/main.js', 'dist/runtime/webhook/index.js', 'dist/testing/index.js']);
      const { parent, project } = await initLinkedProject('mg', 'kop-e2e-multigroup-', [
        '--plugins=go/v4',
        '--multigroup',
      ]);
      parents.push(parent);
      const { kop, verify } = inProject(project);
      for (const group of ['foo', 'fiz']) {
        await kop([
          'create',
          'api',
          '--group',
          group,
          '--version',
          'v1',
          '--kind',
          'Bar',
          '--resource=true',
          '--controller=true',
        ]);
        await kop([
          'create',
          'webhook',
          '--group',
          group,
          '--version',
          'v1',
          '--kind',
          'Bar',
          '--defaulting',
          '--programmatic-validation',
        ]);
      }
      expect(await readFile(path.join(project, 'PROJECT'), 'utf8')).toContain('\nmultigroup: true\n');
      const stdout = await verify();
      for (const group of ['foo', 'fiz']) {
        expect(stdout).toContain(`test/controllers/${group}/bar.controller.test.ts`);
        expect(stdout).toContain(`test/webhooks/${group}/v1/bar.defaulter.test.ts`);
      }
      // Both webhooks are in the configuration under names of their own.
      const manifests = await readFile(path.join(project, 'config/webhook/manifests.yaml'), 'utf8');
      for (const name of ['mfoo-bar-v1.kb.io', 'mfiz-bar-v1.kb.io', 'vfoo-bar-v1.kb.io', 'vfiz-bar-v1.kb.io'])
        expect(manifests).toContain(`name: ${name}`);
    },
    TIMEOUT,
  );

  it(
    'kop edit --multigroup, then --namespaced, on a project with two kinds: it still generates, type-checks and passes its tests',
    async () => {
      const { parent, project } = await initLinkedProject('sg', 'kop-e2e-edit-layout-');
      parents.push(parent);
      const { kop, verify } = inProject(project);
      await kop(['create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--yes']);
      await kop(['create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate', '--yes']);
      await kop(['create', 'webhook', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate', '--defaulting']);

      const multigroup = await kop(['edit', '--multigroup']);
      expect(multigroup.stdout).toContain('CREATE src/controllers/ship/frigate.controller.ts');
      expect(multigroup.stdout).toContain('DELETE test/controllers/memcached.controller.test.ts');
      // A kind of the same name in another group now works.
      await kop(['create', 'api', '--group', 'sea', '--version', 'v1', '--kind', 'Frigate', '--yes']);

      const namespaced = await kop(['edit', '--namespaced=true', '--force']);
      expect(namespaced.stdout).toContain('UPDATE config/manager/manager.yaml');
      expect(await readFile(path.join(project, 'config/rbac/role_binding.yaml'), 'utf8')).toContain(
        'kind: RoleBinding',
      );

      const stdout = await verify();
      expect(stdout).toContain('test/controllers/ship/frigate.controller.test.ts');
      expect(stdout).toContain('test/controllers/sea/frigate.controller.test.ts');
      expect(stdout).toContain('test/controllers/cache/memcached.controller.test.ts');
      expect(await readFile(path.join(project, 'config/rbac/role.yaml'), 'utf8')).toMatch(/kind: Role\n/);
    },
    TIMEOUT,
  );
});
