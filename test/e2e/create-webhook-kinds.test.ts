import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { initLinkedProject, KOP_BIN, requireBuilt } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * The webhooks of Kubebuilder's testdata script, as Kubebuilder spells them, through the built
 * CLI: custom paths on a project kind, built-in Pod (core) and Deployment (apps), an external
 * Issuer imported with `kop import crd`, each added in two calls where the script does so
 * (defaulting first, validation later, with the user's edit in between kept). Then generate,
 * `tsc --strict` and the project's own tests, which create Pods, Deployments, Issuers and
 * Sailors through a real apiserver calling the manager's webhooks; and a deploy-image kind
 * (Memcached, whose spec has no `foo`) with both webhooks. Needs `npm run build`.
 */
const ISSUER_CRD = fileURLToPath(new URL('../golden/create-webhook/issuer-crd.yaml', import.meta.url));
const TIMEOUT = 300_000;

describe('kop create webhook for every kind of kind', () => {
  let parent: string;
  let project: string;
  const run = (file: string, args: string[]) =>
    execa(file, args, { cwd: project, reject: false, stdin: 'ignore', env: { NO_COLOR: '1', CI: 'true' } });
  const kop = (args: string[]) => run('node', [KOP_BIN, ...args]);
  const ok = async (args: string[]) => {
    const result = await kop(args);
    expect(result.exitCode, `kop ${args.join(' ')}\n${result.stderr}`).toBe(0);
    return result;
  };

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/runtime/webhook/index.js', 'dist/testing/index.js']);
    ({ parent, project } = await initLinkedProject('demo', 'kop-e2e-webhook-kinds-'));
  }, TIMEOUT);
  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'scaffolds, generates, type-checks and passes its own tests through the apiserver',
    async () => {
      await ok([
        'create',
        'api',
        '--group',
        'crew',
        '--version',
        'v1',
        '--kind',
        'Sailor',
        '--controller=true',
        '--resource=true',
        '--make=false',
      ]);
      await ok(['import', 'crd', ISSUER_CRD]);
      await ok([
        'create',
        'webhook',
        '--group',
        'crew',
        '--version',
        'v1',
        '--kind',
        'Sailor',
        '--defaulting',
        '--defaulting-path=/custom-mutate-sailor',
        '--make=false',
      ]);
      // The user's edit of the defaulter survives the second call.
      const defaulter = path.join(project, 'src/webhooks/crew/v1/sailor.defaulter.ts');
      await writeFile(
        defaulter,
        (await readFile(defaulter, 'utf8')).replace(
          "object.spec.foo ??= 'default';",
          "object.spec.foo ??= 'default'; // mine",
        ),
      );
      await ok([
        'create',
        'webhook',
        '--group',
        'crew',
        '--version',
        'v1',
        '--kind',
        'Sailor',
        '--programmatic-validation',
        '--validation-path=/custom-validate-sailor',
        '--make=false',
      ]);
      expect(await readFile(defaulter, 'utf8')).toContain('// mine');
      await ok(['create', 'webhook', '--group', 'core', '--version', 'v1', '--kind', 'Pod', '--defaulting']);
      await ok(['create', 'webhook', '--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--defaulting']);
      await ok([
        'create',
        'webhook',
        '--group',
        'apps',
        '--version',
        'v1',
        '--kind',
        'Deployment',
        '--programmatic-validation',
      ]);
      await ok([
        'create',
        'webhook',
        '--group',
        'cert-manager',
        '--version',
        'v1',
        '--kind',
        'Issuer',
        '--defaulting',
        '--external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
        '--external-api-domain=io',
      ]);
      // A kind whose spec has no `foo` (deploy-image's size and containerPort): the label example, which compiles and passes.
      await ok([
        'create',
        'api',
        '--group',
        'example.com',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--image=memcached:1.6.26-alpine3.19',
        '--image-container-port=11211',
        '--plugins=deploy-image/v1-alpha',
        '--make=false',
      ]);
      await ok([
        'create',
        'webhook',
        '--group',
        'example.com',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--programmatic-validation',
        '--defaulting',
        '--make=false',
      ]);
      expect(
        await readFile(path.join(project, 'src/webhooks/example.com/v1alpha1/memcached.validator.ts'), 'utf8'),
      ).not.toContain('foo');

      const again = await kop([
        'create',
        'webhook',
        '--group',
        'apps',
        '--version',
        'v1',
        '--kind',
        'Deployment',
        '--defaulting',
      ]);
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toMatch(/already has a defaulting webhook[^]*hint: pass --force/);

      const recorded = parse(await readFile(path.join(project, 'PROJECT'), 'utf8')) as {
        resources: Record<string, unknown>[];
      };
      expect(recorded.resources.find((r) => r.kind === 'Pod')).toEqual({
        group: 'core',
        version: 'v1',
        kind: 'Pod',
        plural: 'pods',
        path: 'k8s.io/api/core/v1',
        core: true,
        webhooks: { defaulting: true, webhookVersion: 'v1' },
      });
      expect(recorded.resources.find((r) => r.kind === 'Sailor')?.webhooks).toEqual({
        defaulting: true,
        defaultingPath: '/custom-mutate-sailor',
        validation: true,
        validationPath: '/custom-validate-sailor',
        webhookVersion: 'v1',
      });

      await ok(['generate']);
      const manifests = await readFile(path.join(project, 'config/webhook/manifests.yaml'), 'utf8');
      for (const servicePath of [
        '/custom-mutate-sailor',
        '/custom-validate-sailor',
        '/mutate--v1-pod',
        '/mutate-apps-v1-deployment',
        '/validate-apps-v1-deployment',
        '/mutate-cert-manager-io-v1-issuer',
      ]) {
        expect(manifests).toContain(`path: ${servicePath}\n`);
      }

      const checked = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
      expect(checked.exitCode, checked.stdout).toBe(0);

      // The Issuer's CRD belongs to another project: its tests install it from test/crds.
      await mkdir(path.join(project, 'test/crds'));
      await writeFile(path.join(project, 'test/crds/issuers.yaml'), await readFile(ISSUER_CRD, 'utf8'));
      const test = await run('npm', ['test']);
      expect(test.exitCode, test.stdout + test.stderr).toBe(0);
      for (const file of [
        'sailor.defaulter',
        'sailor.validator',
        'pod.defaulter',
        'deployment.defaulter',
        'deployment.validator',
        'issuer.defaulter',
        'memcached.defaulter',
        'memcached.validator',
      ]) {
        expect(test.stdout).toMatch(new RegExp(`${file.replace('.', '\\.')}\\.test\\.ts`));
      }
      expect(test.stdout).not.toMatch(/skipped/);
    },
    TIMEOUT,
  );
});
