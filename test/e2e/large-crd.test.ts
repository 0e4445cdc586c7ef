/**
 * A CRD over 256 KiB (the Kubebuilder CronJob tutorial's kind, which embeds a whole batch/v1
 * JobTemplateSpec) through every way kop installs it, against a real kube-apiserver: client-side
 * `kubectl apply -k config/crd` is refused for the size of its last-applied annotation (what kop
 * warns about), while `kop install`, `kop deploy`, the installer (`kubectl apply --server-side -f
 * dist/install.yaml`), the Helm chart (install, a change of the types, `helm upgrade`) and kop
 * dev's create-or-replace install it and serve the schema of the types as they are. helm is the
 * real helm (`kop setup-envtest --helm`).
 */
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execaExec } from '../../src/base/make-context.js';
import { generators } from '../../src/commands/generate.js';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runBuildInstaller, runDeploy, runInstall, runUndeploy } from '../../src/deploy/run-deploy.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runInit } from '../../src/init/run-init.js';
import { runEdit } from '../../src/edit/run-edit-plugins.js';
import { ANNOTATIONS_SIZE_LIMIT, LAST_APPLIED_ANNOTATION } from '../../src/schema/crd-size.js';
import { findHelm } from '../../src/testing/build-helm.js';
import { findControlPlaneBinary, startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { tempDir, testContext } from '../helpers/fake-context.js';

const TIMEOUT = 240_000;
const CRD_NAME = 'cronjobs.batch.example.com';
const CRD_FILE = 'config/crd/bases/batch.example.com_cronjobs.yaml';
const TYPES_FILE = 'api/batch/v1/cronjob.types.ts';
const kubectlPath = findControlPlaneBinary('kubectl');
const helm = findHelm();

/** A CronJob; `extra` goes into its spec. */
function cronJob(name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'batch.example.com/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'default' },
    spec: {
      jobTemplate: {
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'job', image: 'busybox:1.36' }] } } },
      },
      ...extra,
    },
  });
}

describe('a CRD over 256 KiB', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let plane: ControlPlane;
  const context = () => ({
    ...testContext({ cwd: dir, exec: execaExec }),
    env: { ...process.env, KUBECTL: kubectlPath, IMG: '' },
  });
  const kubectl = (args: string[], input?: string) =>
    execa(kubectlPath, ['--kubeconfig', plane.kubeconfigPath, ...args], { cwd: dir, reject: false, input });
  const helmRun = (args: string[]) =>
    execa(helm, [...args, '--kubeconfig', plane.kubeconfigPath], {
      cwd: dir,
      reject: false,
      env: {
        HELM_CACHE_HOME: path.join(dir, '.helm-cache'),
        HELM_CONFIG_HOME: path.join(dir, '.helm-config'),
        HELM_DATA_HOME: path.join(dir, '.helm-data'),
      },
    });
  const servedCrd = async () => {
    const got = await kubectl(['get', 'crd', CRD_NAME, '-o', 'json']);
    expect(got.exitCode, got.stderr).toBe(0);
    return JSON.parse(got.stdout) as {
      metadata: { annotations?: Record<string, string> };
      spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: object } } } } }> };
    };
  };
  const specFields = async () =>
    Object.keys((await servedCrd()).spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties).sort();
  const crdGone = async () => {
    for (let i = 0; i < 150; i++) {
      if ((await kubectl(['get', 'crd', CRD_NAME])).exitCode !== 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${CRD_NAME} was not deleted`);
  };

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir('cronjob'));
    await runInit(
      {
        projectName: 'cronjob',
        domain: 'example.com',
        owner: 'x',
        license: 'none',
        kopSource: 'file:../kop',
        skipInstall: true,
      },
      context(),
    );
    await runCreateApi({ group: 'batch', version: 'v1', kind: 'CronJob' }, context());
    // The tutorial's spec: a whole Job template.
    const types = await readFile(path.join(dir, TYPES_FILE), 'utf8');
    const withJob = types
      .replace(
        "import type { Condition, ListMeta, ObjectMeta } from 'kop/api';",
        "import type { Condition, JobTemplateSpec, ListMeta, ObjectMeta } from 'kop/api';",
      )
      .replace(
        /  \/\*\*\n   \* foo shows[\s\S]*?foo\?: string;\n/,
        '  /** The Job each run creates. */\n  jobTemplate: JobTemplateSpec;\n',
      );
    expect(withJob).toContain('jobTemplate: JobTemplateSpec;');
    await writeFile(path.join(dir, TYPES_FILE), withJob);
    plane = await startControlPlane();
  }, TIMEOUT);
  afterAll(async () => {
    await plane?.stop();
    await cleanup?.();
  });

  it(
    'kop generate writes it and warns that client-side apply refuses it, as the apiserver does',
    { timeout: TIMEOUT },
    async () => {
      const generate = context();
      await runGenerate({ check: false, generators }, generate);
      expect(generate.out.warnings).toEqual([
        expect.stringContaining(`${CRD_FILE}: the CRD is too large for client-side \`kubectl apply\``),
      ]);
      expect(Buffer.byteLength(await readFile(path.join(dir, CRD_FILE), 'utf8'))).toBeGreaterThan(
        ANNOTATIONS_SIZE_LIMIT,
      );
      // What the warning is about: client-side apply stores the whole CRD in an annotation.
      const clientSide = await kubectl(['apply', '-k', 'config/crd']);
      expect(clientSide.exitCode).not.toBe(0);
      expect(clientSide.stderr).toContain('Too long: may not be more than 262144 bytes');
    },
  );

  it('kop install and kop deploy apply it server-side, with no last-applied copy', { timeout: TIMEOUT }, async () => {
    await runInstall({ kubeconfig: plane.kubeconfigPath }, context());
    const installed = await servedCrd();
    expect(installed.metadata.annotations ?? {}).not.toHaveProperty(LAST_APPLIED_ANNOTATION);
    const established = await kubectl(['wait', '--for=condition=Established', `crd/${CRD_NAME}`, '--timeout=60s']);
    expect(established.exitCode, established.stderr).toBe(0);
    expect(await specFields()).toEqual(['jobTemplate']);
    const created = await kubectl(['create', '-f', '-'], cronJob('nightly'));
    expect(created.exitCode, created.stderr).toBe(0);

    const deploy = context();
    await runDeploy({ kubeconfig: plane.kubeconfigPath, image: 'registry.example.com/cronjob:v1' }, deploy);
    expect(deploy.out.lines).toContain(`customresourcedefinition.apiextensions.k8s.io/${CRD_NAME} serverside-applied`);
  });

  it('the installer applies with kubectl apply --server-side', { timeout: TIMEOUT }, async () => {
    await runBuildInstaller({ image: 'registry.example.com/cronjob:v1' }, context());
    const installer = await readFile(path.join(dir, 'dist/install.yaml'), 'utf8');
    expect(installer).toContain('#   kubectl apply --server-side -f install.yaml');
    const applied = await kubectl(['apply', '--server-side', '-f', 'dist/install.yaml']);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`customresourcedefinition.apiextensions.k8s.io/${CRD_NAME} serverside-applied`);
    expect((await servedCrd()).metadata.annotations ?? {}).not.toHaveProperty(LAST_APPLIED_ANNOTATION);
    // Make room for the Helm release: its objects must not be someone else's.
    await kubectl(['delete', 'cronjobs.batch.example.com', '--all', '-n', 'default']);
    await runUndeploy({ kubeconfig: plane.kubeconfigPath, ignoreNotFound: true }, context());
    await crdGone();
  });

  it(
    'the Helm chart installs it, and helm upgrade serves the schema of changed types',
    { timeout: TIMEOUT },
    async () => {
      await runEdit({ plugins: ['helm'] }, context());
      const image = ['--set', 'manager.image.repository=registry.example.com/cronjob,manager.image.tag=v1'];
      const install = await helmRun([
        'install',
        'large',
        'dist/chart',
        '-n',
        'large-system',
        '--create-namespace',
        ...image,
      ]);
      expect(install.exitCode, install.stderr).toBe(0);
      expect(install.stdout).toContain(`\`helm upgrade\` with a newer chart updates their schemas.\n  ${CRD_NAME}\n`);
      const installed = await servedCrd();
      expect(installed.metadata.annotations).toMatchObject({ 'helm.sh/resource-policy': 'keep' });
      expect(installed.metadata.annotations ?? {}).not.toHaveProperty(LAST_APPLIED_ANNOTATION);
      expect(await specFields()).toEqual(['jobTemplate']);
      // Not in the schema yet: strict field validation refuses it.
      const early = await kubectl(['create', '--validate=strict', '-f', '-'], cronJob('early', { suspend: true }));
      expect(early.exitCode).not.toBe(0);
      expect(early.stderr).toContain('unknown field "spec.suspend"');

      // The user adds a field, regenerates, and upgrades the release.
      const types = await readFile(path.join(dir, TYPES_FILE), 'utf8');
      await writeFile(
        path.join(dir, TYPES_FILE),
        types.replace(
          '  jobTemplate: JobTemplateSpec;\n',
          '  jobTemplate: JobTemplateSpec;\n  /** +optional */\n  suspend?: boolean;\n',
        ),
      );
      await runGenerate({ check: false, generators }, context());
      await runEdit({ plugins: ['helm'] }, context());
      expect(await readFile(path.join(dir, 'dist/chart/templates/crd', `${CRD_NAME}.yaml`), 'utf8')).toContain(
        'suspend:',
      );
      const upgrade = await helmRun(['upgrade', 'large', 'dist/chart', '-n', 'large-system', ...image]);
      expect(upgrade.exitCode, upgrade.stderr).toBe(0);
      expect(await specFields()).toEqual(['jobTemplate', 'suspend']);
      // And the apiserver serves it: the field is accepted and kept.
      let created;
      for (let attempt = 0; attempt < 50; attempt++) {
        created = await kubectl(['create', '--validate=strict', '-f', '-'], cronJob('paused', { suspend: true }));
        if (created.exitCode === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(created!.exitCode, created!.stderr).toBe(0);
      const got = await kubectl(['get', 'cronjobs.batch.example.com', 'paused', '-n', 'default', '-o', 'json']);
      expect((parseYaml(got.stdout) as { spec: { suspend?: boolean } }).spec.suspend).toBe(true);

      // helm uninstall leaves the CRD (crd.keep) and its objects.
      const uninstall = await helmRun(['uninstall', 'large', '-n', 'large-system']);
      expect(uninstall.exitCode, uninstall.stderr).toBe(0);
      expect(await specFields()).toEqual(['jobTemplate', 'suspend']);
    },
  );

  it(
    "kop dev's way (kop/testing's installCRDs: create, else replace) installs it over the one there",
    {
      timeout: TIMEOUT,
    },
    async () => {
      // Back to the types without suspend: the CRD there is replaced with the generated one.
      const types = await readFile(path.join(dir, TYPES_FILE), 'utf8');
      await writeFile(path.join(dir, TYPES_FILE), types.replace('  /** +optional */\n  suspend?: boolean;\n', ''));
      await runGenerate({ check: false, generators }, context());
      const [installed] = await plane.installCRDs(path.join(dir, CRD_FILE));
      expect(installed!.metadata.name).toBe(CRD_NAME);
      expect(await specFields()).toEqual(['jobTemplate']);
      expect((await servedCrd()).metadata.annotations ?? {}).not.toHaveProperty(LAST_APPLIED_ANNOTATION);
    },
  );
});
