/**
 * Secure metrics through a real apiserver, as a cluster sees them: the manager runs as a
 * ServiceAccount bound to exactly the scaffold's metrics_auth_role (templates/init/config/rbac),
 * scrapers present ServiceAccount tokens from the TokenRequest API, and the scaffold's
 * metrics-reader ClusterRole decides who reads. HTTPS with a self-signed certificate by
 * default, or the certificate in a folder, reloaded when it changes; plain HTTP when asked.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manager, silentLogger } from '../../../src/runtime/index.js';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { leaseTestControlPlane, restFor, type LeasedControlPlane } from '../controller/helpers.js';
import { makeCertDir, type CertDir } from '../webhook/helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const rbacTemplates = path.resolve(here, '../../../templates/init/config/rbac');

let plane: LeasedControlPlane;
let admin: RestClient;
const namespace = 'metrics-test';

/** A token of ServiceAccount `name` from the TokenRequest API. */
async function tokenOf(name: string): Promise<string> {
  const request = await admin.post<{ status: { token: string } }>(
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 600 },
    },
  );
  return request.status.token;
}

/** A scaffold RBAC template as an object (they hold no template expressions). */
async function rbacObject(file: string): Promise<Record<string, unknown>> {
  return parse(await readFile(path.join(rbacTemplates, file), 'utf8')) as Record<string, unknown>;
}

interface Scrape {
  status: number;
  body: string;
  peerCertificate?: X509Certificate;
}

/** GETs `url`; HTTPS trusts `ca` when given, else checks nothing (and returns the certificate served). */
function scrape(url: string, options: { token?: string; ca?: string } = {}): Promise<Scrape> {
  const { hostname, port, pathname, protocol } = new URL(url);
  const secure = protocol === 'https:';
  const requestOptions: https.RequestOptions = {
    host: hostname.replace(/^\[|\]$/g, ''),
    port,
    path: pathname,
    headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    agent: false,
    ...(secure ? { ca: options.ca, rejectUnauthorized: options.ca !== undefined } : {}),
  };
  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage) => {
      const peerCertificate = secure ? (res.socket as TLSSocket).getPeerX509Certificate() : undefined;
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, peerCertificate }));
    };
    (secure ? https.get(requestOptions, onResponse) : http.get(requestOptions, onResponse)).on('error', reject);
  });
}

beforeAll(async () => {
  plane = await leaseTestControlPlane();
  admin = restFor(plane);
  await admin.post('/api/v1/namespaces', { metadata: { name: namespace } });
  for (const name of ['controller-manager', 'prometheus', 'someone-else']) {
    await admin.post(`/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name } });
  }
  // The scaffold's roles, bound as config/rbac binds them (the namespace set as kustomize would).
  const authRole = await rbacObject('metrics_auth_role.yaml.hbs');
  const authBinding = await rbacObject('metrics_auth_role_binding.yaml.hbs');
  (authBinding.subjects as { namespace: string }[])[0]!.namespace = namespace;
  const readerRole = await rbacObject('metrics_reader_role.yaml.hbs');
  await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', authRole);
  await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', authBinding);
  await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', readerRole);
  await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'prometheus-metrics-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace }],
  });
});

afterAll(async () => {
  admin?.close();
  await plane?.release();
});

/** A REST client authenticated as the manager's ServiceAccount: only what metrics_auth_role grants. */
async function managerRest(): Promise<RestClient> {
  const config = loadClientConfig({ kubeconfig: plane.kubeconfigPath });
  return new RestClient(
    { ...config, user: { name: 'controller-manager', token: await tokenOf('controller-manager') } },
    { qps: Infinity },
  );
}

describe('secure metrics (the default)', () => {
  let manager: Manager;
  let rest: RestClient;
  let started: Promise<void>;
  let reviews = 0;

  beforeAll(async () => {
    rest = await managerRest();
    // Counts the reviews the manager sends, to see the cache at work.
    const post = rest.post.bind(rest);
    rest.post = ((p: string, ...rest: Parameters<typeof post> extends [string, ...infer R] ? R : never) => {
      if (p.includes('tokenreviews') || p.includes('subjectaccessreviews')) reviews++;
      return post(p, ...rest);
    }) as typeof rest.post;
    manager = new Manager({
      rest,
      logger: silentLogger,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
    });
    started = manager.start();
    await new Promise((resolve) => setTimeout(resolve, 0));
    for (let i = 0; i < 100 && !manager.metricsUrl; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  });

  afterAll(async () => {
    await manager?.stop();
    await started;
    rest?.close();
  });

  it('serves HTTPS with a self-signed certificate made in memory', async () => {
    expect(manager.metricsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const { peerCertificate } = await scrape(manager.metricsUrl!);
    expect(peerCertificate?.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(peerCertificate?.verify(peerCertificate.publicKey)).toBe(true); // self-signed
    // Pinning the certificate works: a client can verify it instead of skipping verification.
    const pinned = await scrape(manager.metricsUrl!, { ca: peerCertificate!.toString(), token: 'x' });
    expect(pinned.status).toBe(401);
  });

  it('answers 401 without a token and with a token the apiserver does not know', async () => {
    expect(await scrape(manager.metricsUrl!)).toMatchObject({ status: 401, body: 'Unauthorized\n' });
    expect((await scrape(manager.metricsUrl!, { token: 'not-a-token' })).status).toBe(401);
  });

  it('answers 403 to a ServiceAccount without the metrics-reader role', async () => {
    const answer = await scrape(manager.metricsUrl!, { token: await tokenOf('someone-else') });
    expect(answer).toMatchObject({
      status: 403,
      body: `Authorization denied for user system:serviceaccount:${namespace}:someone-else\n`,
    });
  });

  it('serves the metrics to a ServiceAccount bound to metrics-reader, and caches the decision', async () => {
    const token = await tokenOf('prometheus');
    const first = await scrape(manager.metricsUrl!, { token });
    expect(first.status).toBe(200);
    expect(first.body).toContain('# TYPE process_cpu_user_seconds_total counter');
    const before = reviews;
    for (let i = 0; i < 5; i++) expect((await scrape(manager.metricsUrl!, { token })).status).toBe(200);
    expect(reviews).toBe(before);
  });

  it('answers 404 on other paths, and health probes stay plain HTTP', async () => {
    const token = await tokenOf('prometheus');
    const other = await scrape(manager.metricsUrl!.replace('/metrics', '/debug'), { token });
    expect(other.status).toBe(404);
    expect((await fetch(`http://${manager.healthProbeAddress}/healthz`)).status).toBe(200);
  });
});

describe('secure metrics with a certificate from a folder', () => {
  let certs: CertDir;
  let manager: Manager;
  let started: Promise<void>;

  beforeAll(async () => {
    certs = await makeCertDir();
    manager = new Manager({
      rest: await managerRest(),
      logger: silentLogger,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '0',
      metricsServer: { certDir: certs.dir, certPollIntervalMs: 200 },
    });
    started = manager.start();
    for (let i = 0; i < 100 && !manager.metricsUrl; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  });

  afterAll(async () => {
    await manager?.stop();
    await started;
    await certs?.remove();
  });

  it('serves the mounted certificate and the new one after a rotation, without a restart', async () => {
    const token = await tokenOf('prometheus');
    expect((await scrape(manager.metricsUrl!, { token, ca: certs.ca.certPem })).status).toBe(200);
    const oldCa = certs.ca.certPem;
    const newCa = await certs.rotate();
    await manager.reloadMetricsCertificate();
    expect((await scrape(manager.metricsUrl!, { token, ca: newCa.certPem })).status).toBe(200);
    await expect(scrape(manager.metricsUrl!, { token, ca: oldCa })).rejects.toThrow(/certificate/);
  });

  it('refuses to start when the folder has no certificate, naming the flags', async () => {
    const broken = new Manager({
      rest: admin,
      logger: silentLogger,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '0',
      metricsServer: { certDir: path.join(certs.dir, 'missing') },
    });
    await expect(broken.start()).rejects.toThrow(
      /metrics server: cannot read the serving certificate.*--metrics-cert-path/,
    );
  });
});

describe('plain metrics (metricsSecure: false)', () => {
  it('serves HTTP to anyone, without asking the apiserver', async () => {
    const manager = new Manager({
      rest: admin,
      logger: silentLogger,
      metricsSecure: false,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '0',
    });
    const started = manager.start();
    try {
      for (let i = 0; i < 100 && !manager.metricsUrl; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(manager.metricsUrl).toMatch(/^http:\/\//);
      const answer = await fetch(manager.metricsUrl!);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('process_cpu_user_seconds_total');
    } finally {
      await manager.stop();
      await started;
    }
  });

  it('serves nothing with bind address 0', async () => {
    const manager = new Manager({
      rest: admin,
      logger: silentLogger,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
    });
    const started = manager.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(manager.metricsUrl).toBeUndefined();
    await manager.stop();
    await started;
  });
});
