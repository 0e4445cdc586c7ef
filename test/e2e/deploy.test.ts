/**
 * The lifecycle scripts of a generated project, run as a user runs them (`npm run ...` in a
 * project made by the built CLI) against a real kube-apiserver: install-crds / uninstall-crds,
 * deploy with an image / undeploy, and build-installer, whose dist/install.yaml kubectl
 * server-side-dry-run-applies. kubectl (for `kubectl kustomize` and the independent checks)
 * comes from the envtest binaries.
 */
import { readFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findControlPlaneBinaries, startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { initLinkedProject, KOP_BIN, type CliProject } from '../helpers/cli-project.js';

const TIMEOUT = 240_000;
const IMAGE = 'registry.example.com/team/demo:v0.1.0';

describe('lifecycle scripts against a real apiserver', () => {
  let plane: ControlPlane;
  let created: CliProject;
  let project: string;
  const kubectlPath = findControlPlaneBinaries().kubectl!;
  const env = () => ({ KUBECONFIG: plane.kubeconfigPath, KUBECTL: kubectlPath, CI: 'true', NO_COLOR: '1', IMG: '' });
  const npmRun = (script: string, args: string[] = [], extraEnv: Record<string, string> = {}) =>
    execa('npm', ['run', '--silent', script, ...(args.length > 0 ? ['--', ...args] : [])], {
      cwd: project,
      reject: false,
      env: { ...env(), ...extraEnv },
    });
  const kop = (args: string[]) => execa('node', [KOP_BIN, ...args], { cwd: project, reject: false, env: env() });
  const kubectl = (args: string[]) =>
    execa(kubectlPath, ['--kubeconfig', plane.kubeconfigPath, ...args], { cwd: project, reject: false });
  const exists = async (args: string[]) => (await kubectl(['get', ...args, '-o', 'name'])).exitCode === 0;

  beforeAll(async () => {
    created = await initLinkedProject('demo', 'kop-deploy-e2e-');
    project = created.project;
    const api = await execa(
      'node',
      [KOP_BIN, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--yes'],
      {
        cwd: project,
        reject: false,
        env: { CI: 'true' },
      },
    );
    expect(api.exitCode, api.stderr).toBe(0);
    plane = await startControlPlane();
  }, TIMEOUT);
  afterAll(async () => {
    await plane?.stop();
    if (created) await rm(created.parent, { recursive: true, force: true });
  });

  it('has no script npm would run by itself on npm install (install, uninstall and their pre/post)', async () => {
    const scripts = (
      JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    for (const lifecycle of [
      'install',
      'preinstall',
      'postinstall',
      'uninstall',
      'preuninstall',
      'postuninstall',
      'prepare',
    ])
      expect(scripts).not.toHaveProperty(lifecycle);
    expect(Object.keys(scripts)).toEqual(
      expect.arrayContaining(['install-crds', 'uninstall-crds', 'deploy', 'undeploy', 'build-installer']),
    );
  });

  it(
    'install-crds applies the CRDs, again without change; uninstall-crds deletes them',
    async () => {
      const install = await npmRun('install-crds');
      expect(install.exitCode, install.stderr).toBe(0);
      expect(install.stdout).toContain(
        'customresourcedefinition.apiextensions.k8s.io/memcacheds.cache.example.com serverside-applied',
      );
      expect(await exists(['crd', 'memcacheds.cache.example.com'])).toBe(true);
      const again = await npmRun('install-crds');
      expect(again.exitCode, again.stderr).toBe(0);
      const managers = JSON.parse(
        (await kubectl(['get', 'crd', 'memcacheds.cache.example.com', '-o', 'json', '--show-managed-fields'])).stdout,
      ) as {
        metadata: { managedFields: Array<{ manager: string; operation: string }> };
      };
      expect(
        managers.metadata.managedFields.filter((field) => field.operation === 'Apply').map((field) => field.manager),
      ).toEqual(['kop']);

      const uninstall = await npmRun('uninstall-crds');
      expect(uninstall.exitCode, uninstall.stderr).toBe(0);
      expect(uninstall.stdout).toContain(
        'customresourcedefinition.apiextensions.k8s.io/memcacheds.cache.example.com deleted',
      );
      await expect.poll(() => exists(['crd', 'memcacheds.cache.example.com']), { timeout: 30_000 }).toBe(false);
      const gone = await npmRun('uninstall-crds');
      expect(gone.exitCode).not.toBe(0);
      expect(gone.stderr).toMatch(/1 of 1 objects were not found[\s\S]*--ignore-not-found/);
      expect((await kop(['uninstall', '--ignore-not-found'])).exitCode).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'build-installer writes dist/install.yaml: one file, image set, CRDs included, which kubectl server-side-dry-run-applies',
    async () => {
      const build = await npmRun('build-installer', [], { IMG: IMAGE });
      expect(build.exitCode, build.stderr).toBe(0);
      expect(build.stdout).toMatch(/(CREATE|UPDATE) dist\/install\.yaml/);
      const text = await readFile(path.join(project, 'dist/install.yaml'), 'utf8');
      expect(text.split('\n')[0]).toBe('# Code generated by kop. DO NOT EDIT.');
      const objects = parseAllDocuments(text).map(
        (doc) => doc.toJS() as { kind: string; metadata: { name: string }; spec?: any },
      );
      expect(objects[0]!.kind).toBe('Namespace');
      expect(objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name)).toEqual([
        'memcacheds.cache.example.com',
      ]);
      const manager = objects.find((o) => o.kind === 'Deployment')!;
      expect(manager.spec.template.spec.containers[0].image).toBe(IMAGE);
      expect((await npmRun('build-installer', [], { IMG: IMAGE })).stdout).toContain('no changes');

      // kubectl's own server-side dry run of the one file; the namespace must exist for the objects in it.
      expect((await kubectl(['create', 'namespace', 'demo-system'])).exitCode).toBe(0);
      const dry = await kubectl(['apply', '--server-side', '--dry-run=server', '-f', 'dist/install.yaml']);
      expect(dry.exitCode, dry.stderr).toBe(0);
      expect(dry.stdout).toContain('deployment.apps/demo-controller-manager serverside-applied (server dry run)');
      expect(dry.stdout).toContain(
        'customresourcedefinition.apiextensions.k8s.io/memcacheds.cache.example.com serverside-applied (server dry run)',
      );
    },
    TIMEOUT,
  );

  it(
    'deploy -- --image sets the manager image and applies config/default; a dry run changes nothing; undeploy deletes it',
    async () => {
      // The namespace exists (the installer test made it): a server dry run goes through and stores nothing.
      const dry = await kop(['deploy', '--image', IMAGE, '--dry-run']);
      expect(dry.exitCode, dry.stderr).toBe(0);
      expect(dry.stdout).toContain(
        'deployment.apps/demo-controller-manager (namespace demo-system) serverside-applied (server dry run)',
      );
      expect(await exists(['deployment', 'demo-controller-manager', '-n', 'demo-system'])).toBe(false);

      const deploy = await npmRun('deploy', ['--image', IMAGE]);
      expect(deploy.exitCode, deploy.stderr).toBe(0);
      expect(deploy.stdout).toContain(
        'deployment.apps/demo-controller-manager (namespace demo-system) serverside-applied',
      );
      const deployment = JSON.parse(
        (await kubectl(['get', 'deployment', 'demo-controller-manager', '-n', 'demo-system', '-o', 'json'])).stdout,
      ) as {
        spec: { template: { spec: { containers: Array<{ name: string; image: string }> } } };
      };
      expect(deployment.spec.template.spec.containers.find((c) => c.name === 'manager')?.image).toBe(IMAGE);
      for (const level of ['admin', 'editor', 'viewer'])
        expect(await exists(['clusterrole', `demo-memcached-${level}-role`])).toBe(true);
      expect(await exists(['crd', 'memcacheds.cache.example.com'])).toBe(true);
      // config/manager/kustomization.yaml is not rewritten (kustomize edit set image would).
      expect(await readFile(path.join(project, 'config/manager/kustomization.yaml'), 'utf8')).not.toContain(
        'registry.example.com',
      );

      // IMG= as Kubebuilder users type it; a redeploy by the same field manager updates in place.
      const redeploy = await npmRun('deploy', [], { IMG: 'registry.example.com/team/demo:v0.2.0' });
      expect(redeploy.exitCode, redeploy.stderr).toBe(0);
      expect(
        (
          await kubectl([
            'get',
            'deployment',
            'demo-controller-manager',
            '-n',
            'demo-system',
            '-o',
            'jsonpath={.spec.template.spec.containers[0].image}',
          ])
        ).stdout,
      ).toBe('registry.example.com/team/demo:v0.2.0');

      const dryDelete = await kop(['undeploy', '--dry-run']);
      expect(dryDelete.exitCode, dryDelete.stderr).toBe(0);
      expect(await exists(['deployment', 'demo-controller-manager', '-n', 'demo-system'])).toBe(true);

      const undeploy = await npmRun('undeploy');
      expect(undeploy.exitCode, undeploy.stderr).toBe(0);
      await expect
        .poll(() => exists(['deployment', 'demo-controller-manager', '-n', 'demo-system']), { timeout: 30_000 })
        .toBe(false);
      expect(await exists(['clusterrole', 'demo-memcached-admin-role'])).toBe(false);
      await expect.poll(() => exists(['crd', 'memcacheds.cache.example.com']), { timeout: 30_000 }).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'refuses an image that is not a reference, before touching the cluster',
    async () => {
      const bad = await npmRun('deploy', ['--image', 'Registry/UPPER:tag']);
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toMatch(/--image: "Registry" in "Registry\/UPPER:tag" is not a valid repository name part/);
    },
    TIMEOUT,
  );
});
