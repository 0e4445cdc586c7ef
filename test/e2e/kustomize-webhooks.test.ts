/**
 * `kubectl kustomize config/default` builds a kop project without webhooks and with every kind
 * of webhook, and what it builds wires them as Kubebuilder's config does: the Service, the
 * cert-manager Certificate named after the Service's final name, CA injection on every webhook
 * configuration and on the converting CRD, the certificate mounted into the manager on 9443,
 * and the NetworkPolicy admitting webhook traffic. kubectl comes from the envtest binaries.
 */
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generators } from '../../src/commands/generate.js';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../src/create-webhook/run-create-webhook.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runInit } from '../../src/init/run-init.js';
import { findControlPlaneBinary } from '../../src/testing/binaries.js';
import { tempDir, testContext } from '../unit/helpers/fake-context.js';

type Manifest = { kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> }; spec?: unknown } & Record<string, unknown>;

describe('kubectl kustomize config/default', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const kubectl = findControlPlaneBinary('kubectl');
  const build = async (): Promise<Manifest[]> => {
    const { stdout } = await execa(kubectl, ['kustomize', 'config/default'], { cwd: dir });
    return parseAllDocuments(stdout).map((doc) => doc.toJS() as Manifest);
  };
  const context = () => testContext({ cwd: dir });

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir('demo'));
    await runInit({ projectName: 'demo', domain: 'example.com', owner: 'x', license: 'none', kopSource: 'file:../kop', skipInstall: true }, context());
    await runCreateApi({ group: 'cache', version: 'v1', kind: 'RedisCluster' }, context());
    await runCreateApi({ group: 'cache', version: 'v1alpha1', kind: 'RedisCluster', controller: false }, context());
    const hubTypes = path.join(dir, 'api/cache/v1/rediscluster.types.ts');
    await writeFile(hubTypes, (await readFile(hubTypes, 'utf8')).replace(' * +kubebuilder:object:root=true\n * +kubebuilder:subresource:status', ' * +kubebuilder:object:root=true\n * +kubebuilder:storageversion\n * +kubebuilder:subresource:status'));
    await runGenerate({ check: false, generators }, context());
  });
  afterAll(() => cleanup());

  it('builds with webhooks off, and none are in it', async () => {
    const kinds = (await build()).map((m) => m.kind);
    expect(kinds).toContain('Deployment');
    expect(kinds).not.toContain('Certificate');
    expect(kinds).not.toContain('MutatingWebhookConfiguration');
  });

  it('builds with defaulting, validating and conversion webhooks, wired for cert-manager', async () => {
    await runCreateWebhook({ group: 'cache', version: 'v1', kind: 'RedisCluster', defaulting: true, programmaticValidation: true, conversion: true, spoke: ['v1alpha1'] }, context());
    await runGenerate({ check: false, generators }, context());
    const built = await build();
    const find = (kind: string) => built.filter((m) => m.kind === kind);
    const injected = 'demo-system/demo-serving-cert';

    expect(find('Service').map((s) => s.metadata.name)).toContain('demo-webhook-service');
    expect((find('Certificate')[0]!.spec as { dnsNames: string[] }).dnsNames).toEqual([
      'demo-webhook-service.demo-system.svc',
      'demo-webhook-service.demo-system.svc.cluster.local',
    ]);
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
      const [configuration] = find(kind);
      expect(configuration?.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBe(injected);
      const webhooks = configuration!.webhooks as { clientConfig: { service: { name: string; namespace: string } } }[];
      expect(webhooks[0]!.clientConfig.service).toMatchObject({ name: 'demo-webhook-service', namespace: 'demo-system' });
    }
    const crd = find('CustomResourceDefinition')[0]!;
    expect(crd.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBe(injected);
    expect((crd.spec as { conversion: unknown }).conversion).toEqual({
      strategy: 'Webhook',
      webhook: { clientConfig: { service: { name: 'demo-webhook-service', namespace: 'demo-system', path: '/convert' } }, conversionReviewVersions: ['v1'] },
    });

    const pod = (find('Deployment')[0]!.spec as { template: { spec: { containers: Record<string, unknown>[]; volumes: unknown[] } } }).template.spec;
    expect(pod.containers[0]!.args).toContain('--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs');
    expect(pod.containers[0]!.ports).toContainEqual({ containerPort: 9443, name: 'webhook-server', protocol: 'TCP' });
    expect(pod.containers[0]!.volumeMounts).toContainEqual({ mountPath: '/tmp/k8s-webhook-server/serving-certs', name: 'webhook-certs', readOnly: true });
    // cert-manager writes the Secret the Certificate names; kustomize renames neither (no Secret object is in the build).
    const secretName = (find('Certificate')[0]!.spec as { secretName: string }).secretName;
    expect(pod.volumes).toContainEqual({ name: 'webhook-certs', secret: { secretName } });
    expect(find('NetworkPolicy').map((p) => p.metadata.name)).toContain('demo-allow-webhook-traffic');
  });
});
