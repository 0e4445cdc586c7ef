/**
 * `kubectl kustomize config/default` builds a kop project without webhooks and with every kind
 * of webhook, in every combination of the optional parts config/default (and config/prometheus)
 * carry as commented toggles, as Kubebuilder's config does; and a real kube-apiserver accepts each
 * build (`kubectl apply --dry-run=server`). What it builds wires metrics as Kubebuilder's
 * config does (HTTPS on 8443, the metrics Service, the auth and reader roles, a ServiceMonitor,
 * network policies, cert-manager's certificate), and webhooks: the Service, the cert-manager
 * Certificate named after the Service's final name, CA injection on every webhook configuration
 * and on the converting CRD, the certificate mounted into the manager on 9443, and the
 * NetworkPolicy admitting webhook traffic. kubectl comes from the envtest binaries.
 *
 * The dry-run installs permissive stand-ins for cert-manager's and the Prometheus Operator's
 * CRDs (their kinds exist, any content is accepted): it proves the objects reach the right
 * kinds and that everything else is valid, not that cert-manager's own schema accepts them.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generators } from '../../src/commands/generate.js';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../src/create-webhook/run-create-webhook.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runInit } from '../../src/init/run-init.js';
import { findControlPlaneBinary } from '../../src/testing/binaries.js';
import { startControlPlane, type ControlPlane, type CustomResourceDefinition } from '../../src/testing/index.js';
import { tempDir, testContext } from '../helpers/fake-context.js';

type Manifest = {
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: unknown;
} & Record<string, unknown>;
type PodSpec = {
  terminationGracePeriodSeconds: number;
  containers: { args: string[]; ports: unknown[]; volumeMounts: unknown[] }[];
  volumes: unknown[];
};

/** The optional parts, off as scaffolded; [METRICS] is on. */
const TOGGLES = ['NETWORK-POLICY', 'PROMETHEUS', 'CERTMANAGER', 'METRICS-WITH-CERTS', 'PROMETHEUS-WITH-CERTS'] as const;
/** The files that carry toggles. */
const TOGGLE_FILES = ['config/default/kustomization.yaml', 'config/prometheus/kustomization.yaml'];

/**
 * Uncomments (or, with `on` false, comments out) the YAML lines of every block headed
 * `# [NAME]` in `text`: lines `#-...`, `#  ...` or `#key:` after the header's explanation lines
 * (`# text`), up to the first line that is not a comment.
 */
function setToggle(text: string, name: string, on: boolean): string {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.trim().startsWith(`# [${name}]`)) continue;
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j]!;
      if (/^\s*# [^\s[]/.test(line)) continue; // explanation
      if (on && /^\s*#(\S|  )/.test(line)) lines[j] = line.replace('#', '');
      else if (!on && /^\s*[^#\s]/.test(line)) lines[j] = line.replace(/^(\s*)/, '$1#');
      else break;
    }
  }
  return lines.join('\n');
}

/** Every subset of the toggles. */
function combinations(): string[][] {
  return Array.from({ length: 2 ** TOGGLES.length }, (_, mask) => TOGGLES.filter((_, i) => mask & (1 << i)));
}

const permissiveCrds = [
  { group: 'cert-manager.io', kind: 'Certificate', plural: 'certificates' },
  { group: 'cert-manager.io', kind: 'Issuer', plural: 'issuers' },
  { group: 'monitoring.coreos.com', kind: 'ServiceMonitor', plural: 'servicemonitors' },
].map(({ group, kind, plural }): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    names: { kind, plural, listKind: `${kind}List`, singular: kind.toLowerCase() },
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
}));

describe('kubectl kustomize config/default', () => {
  let dir: string;
  let scratch: string;
  let cleanup: () => Promise<void>;
  let plane: ControlPlane;
  const kubectl = findControlPlaneBinary('kubectl');
  const context = () => testContext({ cwd: dir });
  const parseBuild = (stdout: string) => parseAllDocuments(stdout).map((doc) => doc.toJS() as Manifest);
  const build = async (root = dir): Promise<Manifest[]> =>
    parseBuild((await execa(kubectl, ['kustomize', path.join(root, 'config/default')])).stdout);
  let copies = 0;
  /** Builds a copy of the project's config/ with `toggles` on (and [METRICS] off when asked). */
  const buildWith = async (
    toggles: readonly string[],
    options: { metrics?: boolean } = {},
  ): Promise<{ manifests: Manifest[]; yaml: string }> => {
    const copy = path.join(scratch, String(++copies));
    await cp(path.join(dir, 'config'), path.join(copy, 'config'), { recursive: true });
    for (const file of TOGGLE_FILES) {
      let text = await readFile(path.join(copy, file), 'utf8');
      for (const toggle of toggles) text = setToggle(text, toggle, true);
      if (options.metrics === false) text = setToggle(text, 'METRICS', false);
      await writeFile(path.join(copy, file), text);
    }
    const { stdout } = await execa(kubectl, ['kustomize', path.join(copy, 'config/default')]);
    await rm(copy, { recursive: true, force: true });
    return { manifests: parseBuild(stdout), yaml: stdout };
  };
  const dryRun = (yaml: string) =>
    execa(kubectl, ['apply', '--dry-run=server', '--kubeconfig', plane.kubeconfigPath, '-f', '-'], { input: yaml });
  /**
   * Builds the project with every combination of the toggles, and has the apiserver dry-run each
   * build. Most objects are the same in many builds, and a server-side dry run persists nothing, so
   * an object is the same request whichever build it is in: each distinct object is sent once, in
   * one `kubectl apply` (a kubectl and a round of requests per build took most of this file's time).
   * When that fails, each build is dry-run alone, to name the combinations the apiserver refuses.
   */
  const acceptsEveryCombination = async (label: string) => {
    const builds: { toggles: string[]; yaml: string }[] = [];
    for (const toggles of combinations()) {
      const { yaml } = await buildWith(toggles).catch((error: Error) => {
        throw new Error(`kustomize failed with ${label}[${toggles.join(', ')}] on: ${error.message}`);
      });
      builds.push({ toggles, yaml });
    }
    const distinct = new Map<string, string>();
    for (const { yaml } of builds)
      for (const doc of parseAllDocuments(yaml)) distinct.set(JSON.stringify(doc.toJS()), doc.toString());
    expect(distinct.size).toBeGreaterThan(0);
    const together = await dryRun([...distinct.values()].join('---\n')).catch((error: Error) => error);
    if (!(together instanceof Error)) return;
    for (const { toggles, yaml } of builds) {
      await dryRun(yaml).catch((error: Error) => {
        throw new Error(`dry run failed with ${label}[${toggles.join(', ')}] on: ${error.message}`);
      });
    }
    throw new Error(`dry run of the builds' objects failed, though each build alone passes: ${together.message}`);
  };
  const find = (built: Manifest[], kind: string, name?: string) =>
    built.filter((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
  const podOf = (built: Manifest[]) =>
    (find(built, 'Deployment')[0]!.spec as { template: { spec: PodSpec } }).template.spec;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir('demo'));
    scratch = await mkdtemp(path.join(tmpdir(), 'kop-kustomize-'));
    const started = startControlPlane();
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
    await runCreateApi({ group: 'cache', version: 'v1', kind: 'RedisCluster' }, context());
    await runCreateApi({ group: 'cache', version: 'v1alpha1', kind: 'RedisCluster', controller: false }, context());
    const hubTypes = path.join(dir, 'api/cache/v1/rediscluster.types.ts');
    await writeFile(
      hubTypes,
      (await readFile(hubTypes, 'utf8')).replace(
        ' * +kubebuilder:object:root=true\n * +kubebuilder:subresource:status',
        ' * +kubebuilder:object:root=true\n * +kubebuilder:storageversion\n * +kubebuilder:subresource:status',
      ),
    );
    await runGenerate({ check: false, generators }, context());
    plane = await started;
    await plane.installCRDs(permissiveCrds);
    await execa(kubectl, ['create', 'namespace', 'demo-system', '--kubeconfig', plane.kubeconfigPath]);
  });
  afterAll(async () => {
    await plane?.stop();
    await rm(scratch, { recursive: true, force: true });
    await cleanup();
  });

  it('names exactly the toggles this test turns on', async () => {
    const headers = new Set<string>();
    for (const file of TOGGLE_FILES)
      for (const match of (await readFile(path.join(dir, file), 'utf8')).matchAll(/# \[([A-Z-]+)\]/g))
        headers.add(match[1]!);
    expect([...headers].sort()).toEqual(['METRICS', ...TOGGLES].sort());
  });

  it('builds with webhooks off, and none are in it; metrics are on, secure, on 8443', async () => {
    const built = await build();
    const kinds = built.map((m) => m.kind);
    expect(kinds).toContain('Deployment');
    expect(kinds).not.toContain('Certificate');
    expect(kinds).not.toContain('MutatingWebhookConfiguration');
    expect(kinds).not.toContain('NetworkPolicy');

    const [service] = find(built, 'Service', 'demo-controller-manager-metrics-service');
    expect(service?.spec).toMatchObject({
      ports: [{ name: 'https', port: 8443, targetPort: 8443, protocol: 'TCP' }],
      selector: { 'control-plane': 'controller-manager' },
    });
    const pod = podOf(built);
    expect(pod.containers[0]!.args[0]).toBe('--metrics-bind-address=:8443');
    expect(pod.containers[0]!.args).not.toContain('--metrics-secure=false');
    expect(pod.containers[0]!.ports).toContainEqual({ containerPort: 8443, name: 'metrics', protocol: 'TCP' });
    expect(find(built, 'ClusterRole', 'demo-metrics-auth-role')[0]?.rules).toEqual([
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ]);
    expect(find(built, 'ClusterRoleBinding', 'demo-metrics-auth-rolebinding')[0]).toMatchObject({
      roleRef: { name: 'demo-metrics-auth-role' },
      subjects: [{ kind: 'ServiceAccount', name: 'demo-controller-manager', namespace: 'demo-system' }],
    });
    expect(find(built, 'ClusterRole', 'demo-metrics-reader')[0]?.rules).toEqual([
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
    ]);
    // /debug/cache is authorised for its own path: a role of its own, apart from the scrapers'.
    expect(find(built, 'ClusterRole', 'demo-metrics-debug-cache-reader')[0]?.rules).toEqual([
      { nonResourceURLs: ['/debug/cache'], verbs: ['get'] },
    ]);
  });

  it('gives the pod longer to stop than the manager waits for reconciles', async () => {
    const pod = podOf(await build());
    const timeout = pod.containers[0]!.args.find((a) => a.startsWith('--graceful-shutdown-timeout='));
    expect(timeout).toBe('--graceful-shutdown-timeout=30s');
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(30);
  });

  it('with [METRICS] off serves no metrics and has no metrics Service', async () => {
    const { manifests, yaml } = await buildWith([], { metrics: false });
    expect(find(manifests, 'Service', 'demo-controller-manager-metrics-service')).toEqual([]);
    expect(podOf(manifests).containers[0]!.args[0]).toBe('--metrics-bind-address=0');
    await dryRun(yaml);
  });

  it('with every toggle on wires the metrics certificate, the ServiceMonitor and the network policy', async () => {
    const { manifests: built } = await buildWith(TOGGLES);
    const service = 'demo-controller-manager-metrics-service';
    expect(find(built, 'Certificate', 'demo-metrics-certs')[0]?.spec).toEqual({
      dnsNames: [`${service}.demo-system.svc`, `${service}.demo-system.svc.cluster.local`],
      issuerRef: { kind: 'Issuer', name: 'demo-selfsigned-issuer' },
      secretName: 'metrics-server-cert',
    });
    expect(find(built, 'Issuer', 'demo-selfsigned-issuer')).toHaveLength(1);
    const pod = podOf(built);
    expect(pod.containers[0]!.args).toContain('--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs');
    expect(pod.containers[0]!.volumeMounts).toContainEqual({
      mountPath: '/tmp/k8s-metrics-server/metrics-certs',
      name: 'metrics-certs',
      readOnly: true,
    });
    expect(pod.volumes).toContainEqual(
      expect.objectContaining({
        name: 'metrics-certs',
        secret: expect.objectContaining({ secretName: 'metrics-server-cert' }),
      }),
    );
    const monitor = find(built, 'ServiceMonitor', 'demo-controller-manager-metrics-monitor')[0]!;
    expect(monitor.spec).toMatchObject({
      endpoints: [
        {
          path: '/metrics',
          port: 'https',
          scheme: 'https',
          bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
          tlsConfig: {
            serverName: `${service}.demo-system.svc`,
            insecureSkipVerify: false,
            ca: { secret: { name: 'metrics-server-cert', key: 'ca.crt' } },
          },
        },
      ],
      selector: { matchLabels: { 'control-plane': 'controller-manager' } },
    });
    expect(find(built, 'NetworkPolicy').map((p) => p.metadata.name)).toEqual(['demo-allow-metrics-traffic']);
    expect(find(built, 'NetworkPolicy')[0]!.spec).toMatchObject({
      ingress: [
        {
          from: [{ namespaceSelector: { matchLabels: { metrics: 'enabled' } } }],
          ports: [{ port: 8443, protocol: 'TCP' }],
        },
      ],
    });
  });

  it('builds every combination of the toggles, and the apiserver accepts each (server-side dry run)', async () => {
    await acceptsEveryCombination('');
  }, 240_000);

  describe('with webhooks', () => {
    beforeAll(async () => {
      // The user turned cert-manager and the network policies on before adding webhooks: create
      // webhook must not list those folders a second time.
      const file = path.join(dir, 'config/default/kustomization.yaml');
      await writeFile(
        file,
        setToggle(setToggle(await readFile(file, 'utf8'), 'CERTMANAGER', true), 'NETWORK-POLICY', true),
      );
      await runCreateWebhook(
        {
          group: 'cache',
          version: 'v1',
          kind: 'RedisCluster',
          defaulting: true,
          programmaticValidation: true,
          conversion: true,
          spoke: ['v1alpha1'],
        },
        context(),
      );
      await runGenerate({ check: false, generators }, context());
    });

    it('lists each folder once and each policy and certificate in its own folder', async () => {
      const kustomization = parse(await readFile(path.join(dir, 'config/default/kustomization.yaml'), 'utf8')) as {
        resources: string[];
      };
      expect(kustomization.resources.filter((r) => r === '../certmanager' || r === '../network-policy')).toEqual([
        '../network-policy',
        '../certmanager',
      ]);
      expect(kustomization.resources).toContain('../webhook');
      const policies = parse(await readFile(path.join(dir, 'config/network-policy/kustomization.yaml'), 'utf8')) as {
        resources: string[];
      };
      expect(policies.resources).toEqual(['allow-metrics-traffic.yaml', 'allow-webhook-traffic.yaml']);
      const certificates = parse(await readFile(path.join(dir, 'config/certmanager/kustomization.yaml'), 'utf8')) as {
        resources: string[];
      };
      expect(certificates.resources).toEqual(['issuer.yaml', 'certificate-metrics.yaml', 'certificate-webhook.yaml']);
    });

    it('builds with defaulting, validating and conversion webhooks, wired for cert-manager', async () => {
      const built = await build();
      const injected = 'demo-system/demo-serving-cert';

      expect(find(built, 'Service').map((s) => s.metadata.name)).toContain('demo-webhook-service');
      expect((find(built, 'Certificate', 'demo-serving-cert')[0]!.spec as { dnsNames: string[] }).dnsNames).toEqual([
        'demo-webhook-service.demo-system.svc',
        'demo-webhook-service.demo-system.svc.cluster.local',
      ]);
      for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
        const [configuration] = find(built, kind);
        expect(configuration?.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBe(injected);
        const webhooks = configuration!.webhooks as {
          clientConfig: { service: { name: string; namespace: string } };
        }[];
        expect(webhooks[0]!.clientConfig.service).toMatchObject({
          name: 'demo-webhook-service',
          namespace: 'demo-system',
        });
      }
      const crd = find(built, 'CustomResourceDefinition')[0]!;
      expect(crd.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBe(injected);
      expect((crd.spec as { conversion: unknown }).conversion).toEqual({
        strategy: 'Webhook',
        webhook: {
          clientConfig: { service: { name: 'demo-webhook-service', namespace: 'demo-system', path: '/convert' } },
          conversionReviewVersions: ['v1'],
        },
      });

      const pod = podOf(built);
      expect(pod.containers[0]!.args).toContain('--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs');
      expect(pod.containers[0]!.ports).toContainEqual({ containerPort: 9443, name: 'webhook-server', protocol: 'TCP' });
      expect(pod.containers[0]!.volumeMounts).toContainEqual({
        mountPath: '/tmp/k8s-webhook-server/serving-certs',
        name: 'webhook-certs',
        readOnly: true,
      });
      // cert-manager writes the Secret the Certificate names; kustomize renames neither (no Secret object is in the build).
      const secretName = (find(built, 'Certificate', 'demo-serving-cert')[0]!.spec as { secretName: string })
        .secretName;
      expect(pod.volumes).toContainEqual({ name: 'webhook-certs', secret: { secretName } });
      expect(
        find(built, 'NetworkPolicy')
          .map((p) => p.metadata.name)
          .sort(),
      ).toEqual(['demo-allow-metrics-traffic', 'demo-allow-webhook-traffic']);
      // Metrics keep their own certificate and port beside the webhooks'.
      expect(pod.containers[0]!.args[0]).toBe('--metrics-bind-address=:8443');
      expect((find(built, 'Certificate', 'demo-metrics-certs')[0]!.spec as { dnsNames: string[] }).dnsNames[0]).toBe(
        'demo-controller-manager-metrics-service.demo-system.svc',
      );
    });

    it('builds every combination of the toggles, and the apiserver accepts each (server-side dry run)', async () => {
      await acceptsEveryCombination('webhooks and ');
    }, 240_000);
  });
});
