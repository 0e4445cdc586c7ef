// Webhooks through a real kube-apiserver, installed by hand here (clientConfig.url + caBundle at
// this process's server on 127.0.0.1): a create is defaulted, an invalid object is refused with
// the validator's message and causes, warnings reach the client, an object written as the spoke
// version reads back as the hub and round-trips, a rotated certificate is picked up without a
// restart, and TLS 1.1 is refused.
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  FieldError,
  Manager,
  ValidationError,
  isNotFound,
  silentLogger,
  type Client,
  type KubernetesObject,
  type ResourceType,
} from '../../../src/runtime/index.js';
import { RestClient, createClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import type { CustomResourceDefinition } from '../../../src/testing/index.js';
import type { CertificateAuthority } from '../../../src/testing/certificates.js';
import { leaseTestControlPlane, type LeasedControlPlane } from '../controller/helpers.js';
import { makeCertDir, post, type CertDir } from './helpers.js';

interface GadgetV2 extends KubernetesObject {
  spec?: { replicas?: number; color?: string };
}
interface GadgetV1 extends KubernetesObject {
  spec?: { size?: number; colour?: string };
}
const GROUP = 'webhook.kop.dev';
const gadgetV2: ResourceType<GadgetV2> = {
  group: GROUP,
  version: 'v2',
  resource: 'gadgets',
  kind: 'Gadget',
  namespaced: true,
};
const gadgetV1: ResourceType<GadgetV1> = {
  group: GROUP,
  version: 'v1',
  resource: 'gadgets',
  kind: 'Gadget',
  namespaced: true,
};

interface WebhookConfiguration extends KubernetesObject {
  webhooks?: ({ name: string; clientConfig: { url?: string; caBundle?: string } } & Record<string, unknown>)[];
}
const mutatingConfigurations: ResourceType<WebhookConfiguration> = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'mutatingwebhookconfigurations',
  kind: 'MutatingWebhookConfiguration',
  namespaced: false,
};
const validatingConfigurations: ResourceType<WebhookConfiguration> = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingwebhookconfigurations',
  kind: 'ValidatingWebhookConfiguration',
  namespaced: false,
};
const crdType: ResourceType<CustomResourceDefinition> = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
};

let plane: LeasedControlPlane;
let rest: RestClient;
let client: Client;
let certs: CertDir;
let manager: Manager;
let running: Promise<void>;
let base: string;
const warnings: string[] = [];
const NS = 'default';

function caBundle(ca: CertificateAuthority): string {
  return Buffer.from(ca.certPem).toString('base64');
}

function gadgetCRD(ca: CertificateAuthority): CustomResourceDefinition {
  const schema = (spec: Record<string, unknown>) => ({
    openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'Gadget', listKind: 'GadgetList', plural: 'gadgets', singular: 'gadget' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: false,
          schema: schema({ size: { type: 'integer' }, colour: { type: 'string' } }),
        },
        {
          name: 'v2',
          served: true,
          storage: true,
          schema: schema({ replicas: { type: 'integer' }, color: { type: 'string' } }),
        },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig: { url: `${base}/convert`, caBundle: caBundle(ca) }, conversionReviewVersions: ['v1'] },
      },
    },
  } as unknown as CustomResourceDefinition;
}

function configuration(kind: 'Mutating' | 'Validating', ca: CertificateAuthority): WebhookConfiguration {
  const mutating = kind === 'Mutating';
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name: `${kind.toLowerCase()}-kop-webhook-live` },
    webhooks: [
      {
        name: `${mutating ? 'm' : 'v'}gadget.${GROUP}`,
        clientConfig: {
          url: `${base}/${mutating ? 'mutate' : 'validate'}-webhook-kop-dev-v2-gadget`,
          caBundle: caBundle(ca),
        },
        rules: [
          {
            apiGroups: [GROUP],
            apiVersions: ['v2'],
            operations: mutating ? ['CREATE', 'UPDATE'] : ['CREATE', 'UPDATE', 'DELETE'],
            resources: ['gadgets'],
          },
        ],
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
      },
    ],
  } as WebhookConfiguration;
}

/** Polls until `check` resolves truthy; the apiserver picks webhook configurations up asynchronously. */
async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}: ${String(last)}`);
}

beforeAll(async () => {
  plane = await leaseTestControlPlane();
  rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), {
    qps: Infinity,
    onWarning: (w) => void warnings.push(w),
  });
  client = createClient(rest);
  certs = await makeCertDir();
  manager = new Manager({
    rest,
    logger: silentLogger,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    webhookServer: { host: '127.0.0.1', port: 0, certDir: certs.dir, certPollIntervalMs: 500 },
  });
  manager
    .webhook(gadgetV2)
    .withDefaulter({
      default(gadget) {
        gadget.spec ??= {};
        gadget.spec.replicas ??= 1;
        gadget.metadata!.labels = { ...gadget.metadata!.labels, 'webhook.kop.dev/defaulted': 'true' };
      },
    })
    .withValidator({
      validateCreate(gadget) {
        const errors: FieldError[] = [];
        if ((gadget.spec?.replicas ?? 0) > 10)
          errors.push(FieldError.invalid('spec.replicas', gadget.spec?.replicas, 'must be at most 10'));
        if (gadget.spec?.color !== undefined && !['red', 'blue'].includes(gadget.spec.color))
          errors.push(FieldError.notSupported('spec.color', gadget.spec.color, ['red', 'blue']));
        if (errors.length > 0) throw new ValidationError(errors);
        return (gadget.spec?.replicas ?? 0) > 5 ? [`${gadget.spec?.replicas} replicas is a lot`] : [];
      },
      validateUpdate(oldGadget, newGadget) {
        if (oldGadget.spec?.color && newGadget.spec?.color !== oldGadget.spec.color)
          throw new ValidationError(FieldError.forbidden('spec.color', 'may not change'));
      },
      validateDelete(gadget) {
        if (gadget.metadata?.labels?.['webhook.kop.dev/keep'] === 'true')
          throw new Error(`${gadget.metadata.name} is labelled keep`);
      },
    })
    .complete();
  manager
    .conversion(gadgetV2)
    .spoke(gadgetV1, {
      convertTo: (v1) => ({ metadata: v1.metadata, spec: { replicas: v1.spec?.size, color: v1.spec?.colour } }),
      convertFrom: (v2) => ({ metadata: v2.metadata, spec: { size: v2.spec?.replicas, colour: v2.spec?.color } }),
    })
    .complete();
  running = manager.start();
  await eventually(async () => manager.webhookAddress, 'the webhook server');
  base = `https://${manager.webhookAddress}`;
  await plane.installCRDs([gadgetCRD(certs.ca)]);
  await client.create(mutatingConfigurations, configuration('Mutating', certs.ca));
  await client.create(validatingConfigurations, configuration('Validating', certs.ca));
  // Both webhooks are in force once a dry-run create is both defaulted and validated.
  await eventually(async () => {
    const probe = await client.create(
      gadgetV2,
      { metadata: { name: 'probe', namespace: NS }, spec: {} },
      { dryRun: true },
    );
    if (probe.spec?.replicas !== 1) return undefined;
    const refused = await client
      .create(gadgetV2, { metadata: { name: 'probe', namespace: NS }, spec: { replicas: 99 } }, { dryRun: true })
      .then(
        () => false,
        () => true,
      );
    return refused || undefined;
  }, 'the webhook configurations to take effect');
});

afterAll(async () => {
  // Cleaned up while this server still answers: the plane's reset deletes webhook configurations before the
  // Gadgets, but the apiserver drops them asynchronously, so a Gadget's deletion could still be sent here once
  // the server is gone, fail, and cost the next file a fresh plane.
  try {
    if (client) {
      for (const [type, kind] of [
        [mutatingConfigurations, 'Mutating'],
        [validatingConfigurations, 'Validating'],
      ] as const)
        await client.delete(type, { name: `${kind.toLowerCase()}-kop-webhook-live` }).catch(ignoreNotFound);
      await client.delete(crdType, { name: `gadgets.${GROUP}` }).catch(ignoreNotFound);
      await eventually(
        () =>
          client.get(crdType, { name: `gadgets.${GROUP}` }).then(
            () => undefined,
            (error: unknown) => isNotFound(error) || undefined,
          ),
        'the Gadget CRD to be deleted',
      );
    }
  } finally {
    await manager?.stop();
    await running?.catch(() => undefined);
    rest?.close();
    await plane?.release();
    await certs?.remove();
  }
});

function ignoreNotFound(error: unknown): void {
  if (!isNotFound(error)) throw error;
}

describe('admission webhooks through the apiserver', () => {
  it('a create is defaulted', async () => {
    const created = await client.create(gadgetV2, {
      metadata: { name: 'plain', namespace: NS },
      spec: { color: 'red' },
    });
    expect(created.spec).toEqual({ color: 'red', replicas: 1 });
    expect(created.metadata?.labels).toEqual({ 'webhook.kop.dev/defaulted': 'true' });
    const read = await client.get(gadgetV2, { namespace: NS, name: 'plain' });
    expect(read.spec?.replicas).toBe(1);
  });

  it("an invalid object is refused with the validator's message and causes", async () => {
    const error = await client
      .create(gadgetV2, { metadata: { name: 'big', namespace: NS }, spec: { replicas: 50, color: 'green' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.code).toBe(422);
    expect(apiError.reason).toBe('Invalid');
    expect(apiError.status.message).toBe(
      `admission webhook "vgadget.${GROUP}" denied the request: Gadget.${GROUP} "big" is invalid: [spec.replicas: Invalid value: 50: must be at most 10, spec.color: Unsupported value: "green": supported values: "red", "blue"]`,
    );
    expect(apiError.status.details).toMatchObject({ name: 'big', group: GROUP, kind: 'Gadget' });
    expect(apiError.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 50: must be at most 10', field: 'spec.replicas' },
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "green": supported values: "red", "blue"',
        field: 'spec.color',
      },
    ]);
  });

  it('warnings reach the client; update and delete are validated with the old object', async () => {
    warnings.length = 0;
    const created = await client.create(gadgetV2, {
      metadata: { name: 'many', namespace: NS, labels: { 'webhook.kop.dev/keep': 'true' } },
      spec: { replicas: 7, color: 'blue' },
    });
    expect(warnings).toContain('7 replicas is a lot');
    const changed = await client
      .update(gadgetV2, { ...created, spec: { ...created.spec, color: 'red' } })
      .catch((e: unknown) => e);
    expect((changed as ApiError).status.message).toContain(
      `Gadget.${GROUP} "many" is invalid: spec.color: Forbidden: may not change`,
    );
    const deleted = await client.delete(gadgetV2, { namespace: NS, name: 'many' }).catch((e: unknown) => e);
    expect((deleted as ApiError).code).toBe(403);
    expect((deleted as ApiError).status.message).toBe(
      `admission webhook "vgadget.${GROUP}" denied the request: many is labelled keep`,
    );
  });
});

describe('conversion through the apiserver', () => {
  it('an object written as the spoke version reads back as the hub, and round-trips', async () => {
    const written = await client.create(gadgetV1, {
      metadata: { name: 'old-style', namespace: NS },
      spec: { size: 3, colour: 'blue' },
    });
    // Written through v1: converted to the hub v2 for the webhooks and storage, then back for the answer.
    expect(written.apiVersion).toBe(`${GROUP}/v1`);
    expect(written.spec).toEqual({ size: 3, colour: 'blue' });
    expect(written.metadata?.labels).toEqual({ 'webhook.kop.dev/defaulted': 'true' });
    const asHub = await client.get(gadgetV2, { namespace: NS, name: 'old-style' });
    expect(asHub.apiVersion).toBe(`${GROUP}/v2`);
    expect(asHub.spec).toEqual({ replicas: 3, color: 'blue' });
    const asSpoke = await client.get(gadgetV1, { namespace: NS, name: 'old-style' });
    expect(asSpoke.spec).toEqual(written.spec);
    expect(asSpoke.metadata?.uid).toBe(written.metadata?.uid);
    const listed = await client.list(gadgetV1, { namespace: NS });
    expect(listed.items.find((g) => g.metadata?.name === 'plain')?.spec).toEqual({ size: 1, colour: 'red' });
  });
});

describe('the serving certificate', () => {
  it('a rotated certificate on disk is picked up without a restart: a client trusting only the new CA connects', async () => {
    const newCa = await certs.rotate();
    await eventually(
      async () => (await post(manager.webhookAddress!, '/convert', {}, { ca: newCa.certPem })).status === 400,
      'the server to present the new certificate',
      10_000,
    );
    // The apiserver, told to trust only the new CA, reaches every webhook again.
    const crd = await client.get(crdType, { name: `gadgets.${GROUP}` });
    await client.update(crdType, { ...crd, spec: gadgetCRD(newCa).spec } as CustomResourceDefinition);
    for (const [type, kind] of [
      [mutatingConfigurations, 'Mutating'],
      [validatingConfigurations, 'Validating'],
    ] as const) {
      const current = await client.get(type, { name: `${kind.toLowerCase()}-kop-webhook-live` });
      await client.update(type, { ...current, webhooks: configuration(kind, newCa).webhooks });
    }
    const created = await eventually(
      () => client.create(gadgetV1, { metadata: { name: 'after-rotation', namespace: NS }, spec: { colour: 'red' } }),
      'a create through all webhooks with the new CA',
    );
    expect(created.spec).toEqual({ size: 1, colour: 'red' });
    expect((await client.get(gadgetV2, { namespace: NS, name: 'after-rotation' })).metadata?.labels).toEqual({
      'webhook.kop.dev/defaulted': 'true',
    });
  });

  it('refuses TLS 1.1', async () => {
    const port = Number(new URL(base).port);
    const outcome = await new Promise<string>((resolve) => {
      const socket = tls.connect({
        host: '127.0.0.1',
        port,
        ca: certs.ca.certPem,
        minVersion: 'TLSv1.1',
        maxVersion: 'TLSv1.1',
        ciphers: 'DEFAULT@SECLEVEL=0',
      });
      socket.on('secureConnect', () => {
        resolve(`connected ${socket.getProtocol()}`);
        socket.end();
      });
      socket.on('error', (error) => resolve(`refused: ${error.message}`));
    });
    expect(outcome).toMatch(/^refused: .*protocol version/);
  });
});
