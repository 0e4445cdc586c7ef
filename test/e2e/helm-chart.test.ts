/**
 * `kop edit --plugins helm` on a generated project: the chart passes `helm lint`, `helm template`
 * with default values gives the objects `kop deploy` installs (same kinds and names, the release
 * named after the project), each value switches what it says, the rendered chart is accepted by a
 * real apiserver's server-side dry run, and regenerating keeps the user's values. helm is built from
 * Go modules by `kop setup-envtest --helm`; kubectl comes from the envtest binaries.
 */
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execaExec } from '../../src/base/make-context.js';
import { generators } from '../../src/commands/generate.js';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../src/create-webhook/run-create-webhook.js';
import { renderKustomization } from '../../src/deploy/render-kustomization.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runEdit } from '../../src/edit/run-edit-plugins.js';
import { runInit } from '../../src/init/run-init.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { findHelm } from '../../src/testing/build-helm.js';
import { findControlPlaneBinary, startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { tempDir, testContext } from '../helpers/fake-context.js';

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
};

const TIMEOUT = 180_000;
const kubectl = findControlPlaneBinary('kubectl');
const helm = findHelm();

/** Stand-ins for cert-manager's and the Prometheus Operator's CRDs: the kinds are served, their fields not checked. */
function stubCrd(group: string, kind: string, plural: string): Manifest {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

describe('kop edit --plugins helm', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let plane: ControlPlane | undefined;
  const context = () => ({ ...testContext({ cwd: dir, exec: execaExec }), env: { ...process.env, KUBECTL: kubectl } });
  const helmRun = (args: string[]) =>
    execa(helm, args, {
      cwd: dir,
      reject: false,
      env: {
        HELM_CACHE_HOME: path.join(dir, '.helm-cache'),
        HELM_CONFIG_HOME: path.join(dir, '.helm-config'),
        HELM_DATA_HOME: path.join(dir, '.helm-data'),
      },
    });
  const template = async (set: string[] = []): Promise<Manifest[]> => {
    const result = await helmRun([
      'template',
      'demo',
      'dist/chart',
      '--namespace',
      'demo-system',
      ...set.flatMap((s) => ['--set', s]),
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    return parseAllDocuments(result.stdout)
      .map((doc) => doc.toJS() as Manifest)
      .filter(Boolean);
  };
  const keys = (objects: Manifest[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
  const managerOf = (objects: Manifest[]) => objects.find((o) => o.kind === 'Deployment')!;
  const argsOf = (objects: Manifest[]) => managerOf(objects).spec.template.spec.containers[0].args as string[];

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir('demo'));
    await runInit(
      {
        projectName: 'demo',
        domain: 'example.com',
        owner: 'x',
        license: 'none',
        kopSource: 'file:../kop',
        skipInstall: true,
      },
      context(),
    );
    await runCreateApi({ group: 'cache', version: 'v1alpha1', kind: 'Memcached' }, context());
    await runGenerate({ check: false, generators }, context());
    await runEdit({ plugins: ['helm'] }, context());
  }, TIMEOUT);
  afterAll(async () => {
    await plane?.stop();
    await cleanup();
  });

  it('writes a chart helm lints, whose defaults render what kop deploy installs', async () => {
    const lint = await helmRun(['lint', '--strict', 'dist/chart']);
    expect(lint.exitCode, lint.stdout + lint.stderr).toBe(0);
    const rendered = await template();
    const deployed = (await renderKustomization('config/default', context())).filter((o) => o.kind !== 'Namespace');
    expect(keys(rendered)).toEqual(keys(deployed as Manifest[]));
    const manager = managerOf(rendered);
    expect(manager.metadata.namespace).toBe('demo-system');
    expect(manager.metadata.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'Helm',
      'app.kubernetes.io/instance': 'demo',
      'helm.sh/chart': 'demo-0.1.0',
    });
    const deployedManager = deployed.find((o) => o.kind === 'Deployment')! as Manifest;
    // The same container, but for the pull policy the chart sets (manager.image.pullPolicy).
    expect(manager.spec.template.spec.containers[0]).toEqual({
      ...deployedManager.spec.template.spec.containers[0],
      imagePullPolicy: 'IfNotPresent',
    });
    expect(manager.spec.template.spec.securityContext).toEqual(deployedManager.spec.template.spec.securityContext);
    // The container's memory limit reaches the manager (its cache memory budget).
    expect(manager.spec.template.spec.containers[0].env).toContainEqual({
      name: 'MEMORY_LIMIT',
      valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1' } },
    });
    expect(
      (
        rendered.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'demo-metrics-debug-cache-reader') as
          (Manifest & { rules?: unknown }) | undefined
      )?.rules,
    ).toEqual([{ nonResourceURLs: ['/debug/cache'], verbs: ['get'] }]);
    const values = parseYaml(await readFile(path.join(dir, 'dist/chart/values.yaml'), 'utf8'));
    expect(values).toMatchObject({
      crd: { enable: true, keep: true },
      metrics: { enable: true, secure: true, port: 8443 },
      prometheus: { enable: false },
      webhook: { enable: false },
    });
    expect(rendered.find((o) => o.kind === 'CustomResourceDefinition')!.metadata.annotations).toMatchObject({
      'helm.sh/resource-policy': 'keep',
    });
  });

  it("records Kubebuilder's plugin keys, names the manager's template manager.yaml, and writes NOTES.txt", async () => {
    const project = parseProjectFile(await readFile(path.join(dir, 'PROJECT'), 'utf8'));
    expect(project.plugins?.['helm.kubebuilder.io/v2-alpha']).toEqual({
      manifests: 'dist/install.yaml',
      output: 'dist',
    });
    const manager = await readFile(path.join(dir, 'dist/chart/templates/manager/manager.yaml'), 'utf8');
    expect(manager).toContain('kind: Deployment');
    // NOTES.txt as helm prints it after an install (rendered without a cluster).
    const dry = await helmRun(['install', 'demo', 'dist/chart', '--namespace', 'demo-system', '--dry-run=client']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const notes = dry.stdout.slice(dry.stdout.indexOf('NOTES:'));
    expect(notes).toContain('demo 0.1.0 is installed as the release demo in the namespace demo-system.');
    expect(notes).toContain('  kubectl logs -n demo-system deployment/demo-controller-manager -c manager');
    expect(notes).toContain(
      '`helm upgrade` with a newer chart updates their schemas.\n  memcacheds.cache.example.com\n',
    );
    expect(notes).toContain('They stay in the cluster when the release is uninstalled (crd.keep)');
    const noCrds = await helmRun([
      ...['install', 'demo', 'dist/chart', '--namespace', 'demo-system', '--dry-run=client'],
      ...['--set', 'crd.enable=false'],
    ]);
    expect(noCrds.stdout).toContain(
      'The chart installs no CRDs (crd.enable=false): install them with `kop install`, or `kubectl apply --server-side -k config/crd`',
    );
  });

  it("puts the chart in <output>/chart when PROJECT's output says so, and refuses one outside the project", async () => {
    const projectFile = path.join(dir, 'PROJECT');
    const original = await readFile(projectFile, 'utf8');
    try {
      await writeFile(projectFile, original.replace('output: dist', 'output: deploy/helm'));
      await runEdit({ plugins: ['helm'] }, context());
      expect(await readFile(path.join(dir, 'deploy/helm/chart/templates/manager/manager.yaml'), 'utf8')).toContain(
        'kind: Deployment',
      );
      await writeFile(projectFile, original.replace('output: dist', 'output: ../elsewhere'));
      const refused = context();
      await expect(runEdit({ plugins: ['helm'] }, refused)).rejects.toThrow(
        'PROJECT: plugins.helm.kubebuilder.io/v2-alpha.output: "../elsewhere" is not a folder inside the project',
      );
      expect(refused.out.lines).toEqual([]);
    } finally {
      await writeFile(projectFile, original);
    }
  });

  it('switches each part with its value', async () => {
    const custom = await template([
      'manager.image.repository=registry.example.com/team/demo',
      'manager.image.tag=v0.2.0',
      'manager.replicas=3',
      'manager.leaderElection=false',
      'manager.extraArgs={--zap-log-level=debug}',
      'manager.resources.limits.memory=512Mi',
      'metrics.secure=false',
      'crd.enable=false',
      'rbac.helpers.enable=false',
      'prometheus.enable=true',
      'networkPolicy.enable=true',
    ]);
    const manager = managerOf(custom);
    expect(manager.spec.replicas).toBe(3);
    expect(manager.spec.template.spec.containers[0].image).toBe('registry.example.com/team/demo:v0.2.0');
    expect(manager.spec.template.spec.containers[0].resources.limits.memory).toBe('512Mi');
    expect(argsOf(custom)).toEqual([
      '--metrics-bind-address=:8443',
      '--metrics-secure=false',
      '--health-probe-bind-address=:8081',
      '--graceful-shutdown-timeout=30s',
      '--zap-log-level=debug',
    ]);
    expect(custom.map((o) => o.kind)).not.toContain('CustomResourceDefinition');
    expect(custom.filter((o) => /-(admin|editor|viewer)-role$/.test(o.metadata.name))).toEqual([]);
    const monitor = custom.find((o) => o.kind === 'ServiceMonitor')!;
    expect(monitor.spec.endpoints[0].tlsConfig.serverName).toBe(
      'demo-controller-manager-metrics-service.demo-system.svc',
    );
    expect(custom.find((o) => o.kind === 'NetworkPolicy')!.metadata.name).toBe('demo-allow-metrics-traffic');

    const noMetrics = await template(['metrics.enable=false', 'prometheus.enable=true']);
    expect(argsOf(noMetrics)[0]).toBe('--metrics-bind-address=0');
    expect(keys(noMetrics).filter((k) => k.includes('metrics'))).toEqual([]);

    // cert-manager's metrics certificate: the Certificate, and the manager mounting and using it.
    const certs = await template(['certManager.enable=true']);
    expect(certs.find((o) => o.kind === 'Certificate')!.spec.dnsNames).toEqual([
      'demo-controller-manager-metrics-service.demo-system.svc',
      'demo-controller-manager-metrics-service.demo-system.svc.cluster.local',
    ]);
    expect(argsOf(certs)).toContain('--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs');
    expect(managerOf(certs).spec.template.spec.volumes.map((v: { name: string }) => v.name)).toEqual(['metrics-certs']);

    // A release of another name gets names of its own.
    expect(managerOf(await template(['fullnameOverride=other'])).metadata.name).toBe('other-controller-manager');
  });

  it('keeps the values you changed when it regenerates, and follows kop where you did not', async () => {
    const valuesFile = path.join(dir, 'dist/chart/values.yaml');
    const edited = (await readFile(valuesFile, 'utf8')).replace(
      '  replicas: 2',
      '  # three for availability\n  replicas: 3',
    );
    await writeFile(valuesFile, edited);
    // The project gains webhooks: webhook.enable and certManager.enable, left alone, follow the new defaults.
    await runCreateWebhook(
      { group: 'cache', version: 'v1alpha1', kind: 'Memcached', defaulting: true, programmaticValidation: true },
      context(),
    );
    await runGenerate({ check: false, generators }, context());
    const again = context();
    await runEdit({ plugins: ['helm'] }, again);
    expect(again.out.lines).toContain('UPDATE dist/chart/values.yaml');
    expect(again.out.lines).toContain('CREATE dist/chart/templates/webhook/validating-webhook-configuration.yaml');
    const merged = await readFile(valuesFile, 'utf8');
    expect(merged).toContain('  # three for availability\n  replicas: 3');
    expect(parseYaml(merged)).toMatchObject({
      manager: { replicas: 3 },
      webhook: { enable: true },
      certManager: { enable: true },
    });
    expect(managerOf(await template()).spec.replicas).toBe(3);

    // Nothing changed since: a re-run writes nothing.
    const idle = context();
    await runEdit({ plugins: ['helm'] }, idle);
    expect(idle.out.lines).toEqual(['no changes']);

    const lint = await helmRun(['lint', '--strict', 'dist/chart']);
    expect(lint.exitCode, lint.stdout + lint.stderr).toBe(0);
    const withWebhooks = await template();
    const deployed = (await renderKustomization('config/default', context())).filter((o) => o.kind !== 'Namespace');
    expect(keys(withWebhooks)).toEqual(keys(deployed as Manifest[]));
    const webhook = withWebhooks.find((o) => o.kind === 'ValidatingWebhookConfiguration')!;
    expect(webhook.metadata.annotations!['cert-manager.io/inject-ca-from']).toBe('demo-system/demo-serving-cert');
    expect((webhook as any).webhooks[0].clientConfig.service).toMatchObject({
      name: 'demo-webhook-service',
      namespace: 'demo-system',
    });
    const off = await template(['webhook.enable=false']);
    expect(off.map((o) => o.kind)).not.toContain('ValidatingWebhookConfiguration');
    expect(managerOf(off).spec.template.spec.volumes.map((v: { name: string }) => v.name)).not.toContain('cert');
  });

  it(
    'renders manifests a real apiserver accepts in a server-side dry run, with every part on',
    { timeout: TIMEOUT },
    async () => {
      plane = await startControlPlane();
      const run = (args: string[], input?: string) =>
        execa(kubectl, ['--kubeconfig', plane!.kubeconfigPath, ...args], { cwd: dir, reject: false, input });
      const stubs = [
        stubCrd('cert-manager.io', 'Issuer', 'issuers'),
        stubCrd('cert-manager.io', 'Certificate', 'certificates'),
        stubCrd('monitoring.coreos.com', 'ServiceMonitor', 'servicemonitors'),
      ];
      expect(
        (await run(['apply', '--server-side', '-f', '-'], stubs.map((s) => JSON.stringify(s)).join('\n---\n')))
          .exitCode,
      ).toBe(0);
      expect((await run(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s'])).exitCode).toBe(0);
      expect((await run(['create', 'namespace', 'demo-system'])).exitCode).toBe(0);
      for (const set of [
        [],
        ['prometheus.enable=true', 'networkPolicy.enable=true', 'metrics.secure=false', 'manager.replicas=3'],
      ]) {
        const rendered = await helmRun([
          'template',
          'demo',
          'dist/chart',
          '--namespace',
          'demo-system',
          ...set.flatMap((s) => ['--set', s]),
        ]);
        expect(rendered.exitCode, rendered.stderr).toBe(0);
        const dry = await run(['apply', '--server-side', '--dry-run=server', '-f', '-'], rendered.stdout);
        expect(dry.exitCode, dry.stderr).toBe(0);
        expect(dry.stdout).toContain('deployment.apps/demo-controller-manager serverside-applied (server dry run)');
        expect(dry.stdout).toContain(
          'validatingwebhookconfiguration.admissionregistration.k8s.io/demo-validating-webhook-configuration serverside-applied (server dry run)',
        );
      }
    },
  );
});
