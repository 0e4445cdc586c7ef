/**
 * startControlPlane's `webhooks` option against a real kube-apiserver: a tiny node:https server
 * of this test (not kop/runtime's webhook server) serves on plane.webhook with the certificate
 * from plane.webhook.certDir, and the API server calls it for admission and conversion.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { apiRequest } from './helpers.js';

const PROJECT = fileURLToPath(new URL('./fixtures/webhook-project/', import.meta.url));
const V1 = '/apis/test.kop.dev/v1/namespaces/default/gizmos';
const V2 = '/apis/test.kop.dev/v2/namespaces/default/gizmos';

interface Gizmo {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; [field: string]: unknown };
  spec: { size?: number; replicas?: number; color?: string };
}

/** What the API server sent to each path. */
const calls: Array<{ path: string; body: Record<string, unknown> }> = [];

/** v1 (hub) has spec.size, v2 spec.replicas. */
function convert(object: Gizmo, desired: string): Gizmo {
  const { size, replicas, ...rest } = object.spec;
  const count = size ?? replicas;
  const spec = desired === 'test.kop.dev/v1' ? { ...rest, size: count } : { ...rest, replicas: count };
  return { ...object, apiVersion: desired, spec };
}

function handle(path: string, body: Record<string, unknown>): unknown {
  if (path === '/convert') {
    const request = body.request as { uid: string; desiredAPIVersion: string; objects: Gizmo[] };
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: request.uid,
        result: { status: 'Success' },
        convertedObjects: request.objects.map((object) => convert(object, request.desiredAPIVersion)),
      },
    };
  }
  const request = body.request as { uid: string; object: Gizmo };
  const review = (response: Record<string, unknown>) => ({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: request.uid, ...response },
  });
  if (path === '/mutate-test-kop-dev-v1-gizmo') {
    const patch = [
      request.object.metadata.labels
        ? { op: 'add', path: '/metadata/labels/mutated', value: 'yes' }
        : { op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } },
      ...(request.object.spec.color === undefined ? [{ op: 'add', path: '/spec/color', value: 'blue' }] : []),
    ];
    return review({
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
    });
  }
  if (path === '/validate-test-kop-dev-v1-gizmo') {
    if ((request.object.spec.size ?? 0) > 10) {
      return review({
        allowed: false,
        status: { code: 422, reason: 'Invalid', message: 'spec.size: must be at most 10' },
      });
    }
    return review({ allowed: true });
  }
  throw new Error(`unexpected path ${path}`);
}

let plane: ControlPlane;
let server: Server;

beforeAll(async () => {
  plane = await startControlPlane({
    crds: [join(PROJECT, 'config/crd/bases')],
    webhooks: { paths: [join(PROJECT, 'config/webhook')], conversionPatches: [join(PROJECT, 'config/crd/patches')] },
  });
  const serving = plane.webhook!;
  server = createServer(
    {
      cert: readFileSync(join(serving.certDir, serving.certName)),
      key: readFileSync(join(serving.certDir, serving.keyName)),
      minVersion: 'TLSv1.2',
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'https://x').pathname;
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
          calls.push({ path, body });
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(handle(path, body)));
        } catch (error) {
          res.writeHead(500).end(String(error));
        }
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(serving.port, serving.host, resolve));
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server?.closeAllConnections();
  await plane?.stop();
});

describe('webhooks installed by startControlPlane', () => {
  it('tells the test where to serve: 127.0.0.1, a port, and a certificate for 127.0.0.1 and localhost signed by caData', () => {
    const serving = plane.webhook!;
    expect(serving).toMatchObject({
      host: '127.0.0.1',
      certName: 'tls.crt',
      keyName: 'tls.key',
      url: `https://127.0.0.1:${serving.port}`,
    });
    expect(serving.port).toBeGreaterThan(0);
    expect(serving.certDir.startsWith(plane.dir)).toBe(true);
    expect(serving.caData).toContain('BEGIN CERTIFICATE');
    expect(serving.configurations).toEqual({
      mutating: ['mutating-webhook-configuration'],
      validating: ['validating-webhook-configuration'],
    });
    expect(serving.conversionCRDs).toEqual(['gizmos.test.kop.dev']);
  });

  it('installs the configurations with clientConfig.url on the local port and the CA as caBundle', async () => {
    const response = await apiRequest(
      plane,
      plane.admin,
      'GET',
      '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/mutating-webhook-configuration',
    );
    expect(response.status).toBe(200);
    const webhook = response.json<{ webhooks: Array<{ clientConfig: Record<string, unknown> }> }>().webhooks[0]!;
    expect(webhook.clientConfig).toEqual({
      url: `https://127.0.0.1:${plane.webhook!.port}/mutate-test-kop-dev-v1-gizmo`,
      caBundle: Buffer.from(plane.webhook!.caData).toString('base64'),
    });
    // The probes that showed the admission chain had caught up are gone.
    const all = await apiRequest(
      plane,
      plane.admin,
      'GET',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    );
    expect(
      all.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((item) => item.metadata.name),
    ).toEqual(['validating-webhook-configuration']);
  });

  it('sends a create through the mutating webhook: its patch is applied', async () => {
    const created = await apiRequest(plane, plane.admin, 'POST', V1, {
      apiVersion: 'test.kop.dev/v1',
      kind: 'Gizmo',
      metadata: { name: 'mutated' },
      spec: { size: 2 },
    });
    expect(created.status, created.body).toBe(201);
    const gizmo = created.json<Gizmo>();
    expect(gizmo.metadata.labels).toEqual({ mutated: 'yes' });
    expect(gizmo.spec).toEqual({ size: 2, color: 'blue' });
    expect(calls.some((call) => call.path === '/mutate-test-kop-dev-v1-gizmo')).toBe(true);
    expect(calls.some((call) => call.path === '/validate-test-kop-dev-v1-gizmo')).toBe(true);
  });

  it('returns the validating webhook denial to the client', async () => {
    const denied = await apiRequest(plane, plane.admin, 'POST', V1, {
      apiVersion: 'test.kop.dev/v1',
      kind: 'Gizmo',
      metadata: { name: 'too-big' },
      spec: { size: 11 },
    });
    expect(denied.status).toBe(422);
    const status = denied.json<{ reason: string; message: string }>();
    expect(status.reason).toBe('Invalid');
    expect(status.message).toBe(
      'admission webhook "vgizmo-v1.kb.io" denied the request: spec.size: must be at most 10',
    );
    expect((await apiRequest(plane, plane.admin, 'GET', `${V1}/too-big`)).status).toBe(404);
  });

  it('calls /convert when an object stored as v1 is read as v2, and round-trips an object written as v2', async () => {
    const before = calls.filter((call) => call.path === '/convert').length;
    const read = await apiRequest(plane, plane.admin, 'GET', `${V2}/mutated`);
    expect(read.status, read.body).toBe(200);
    expect(read.json<Gizmo>()).toMatchObject({ apiVersion: 'test.kop.dev/v2', spec: { replicas: 2, color: 'blue' } });
    const conversions = calls.filter((call) => call.path === '/convert').slice(before);
    expect(conversions.map((call) => (call.body.request as { desiredAPIVersion: string }).desiredAPIVersion)).toContain(
      'test.kop.dev/v2',
    );

    const written = await apiRequest(plane, plane.admin, 'POST', V2, {
      apiVersion: 'test.kop.dev/v2',
      kind: 'Gizmo',
      metadata: { name: 'spoke' },
      spec: { replicas: 4, color: 'red' },
    });
    expect(written.status, written.body).toBe(201);
    expect(written.json<Gizmo>().spec).toEqual({ replicas: 4, color: 'red' });
    const hub = await apiRequest(plane, plane.admin, 'GET', `${V1}/spoke`);
    expect(hub.json<Gizmo>()).toMatchObject({
      apiVersion: 'test.kop.dev/v1',
      metadata: { labels: { mutated: 'yes' } },
      spec: { size: 4, color: 'red' },
    });
  });

  it('sets the patched CRD conversion to the local /convert', async () => {
    const crd = await apiRequest(
      plane,
      plane.admin,
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.test.kop.dev',
    );
    expect(crd.json<{ spec: { conversion: unknown } }>().spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        clientConfig: {
          url: `https://127.0.0.1:${plane.webhook!.port}/convert`,
          caBundle: Buffer.from(plane.webhook!.caData).toString('base64'),
        },
        conversionReviewVersions: ['v1'],
      },
    });
  });
});

describe('USE_EXISTING_CLUSTER mode (this control plane playing the cluster)', () => {
  it('installs the webhooks and conversions the same way, and stop() deletes the configurations and resets the conversion', async () => {
    const existing = await startControlPlane({
      env: { USE_EXISTING_CLUSTER: 'true', KUBECONFIG: plane.kubeconfigPath },
      crds: [join(PROJECT, 'config/crd/bases')],
      webhooks: { paths: [join(PROJECT, 'config/webhook')], conversionPatches: [join(PROJECT, 'config/crd/patches')] },
    });
    const configPath =
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validating-webhook-configuration';
    const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.test.kop.dev';
    try {
      expect(existing.existingCluster).toBe(true);
      expect(existing.webhook!.port).not.toBe(plane.webhook!.port);
      const config = await apiRequest(plane, plane.admin, 'GET', configPath);
      const url = config.json<{ webhooks: Array<{ clientConfig: { url: string } }> }>().webhooks[0]!.clientConfig.url;
      expect(url).toBe(`https://127.0.0.1:${existing.webhook!.port}/validate-test-kop-dev-v1-gizmo`);
    } finally {
      await existing.stop();
    }
    expect(existsSync(existing.webhook!.certDir)).toBe(false);
    expect((await apiRequest(plane, plane.admin, 'GET', configPath)).status).toBe(404);
    const crd = await apiRequest(plane, plane.admin, 'GET', crdPath);
    expect(crd.json<{ spec: { conversion: unknown } }>().spec.conversion).toEqual({ strategy: 'None' });
  });
});

describe('stop()', () => {
  it('removes the certificate folder with the rest', async () => {
    const certDir = plane.webhook!.certDir;
    expect(existsSync(join(certDir, 'tls.crt'))).toBe(true);
    await plane.stop();
    expect(existsSync(certDir)).toBe(false);
  });
});
