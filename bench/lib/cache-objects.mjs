// The objects the cache benches fill a namespace with, and the one creator they share
// (bench/cache-bytes-per-object.mjs, bench/initial-sync-rss.mjs).
//  - ConfigMaps of about 1 KB as JSON: a 500-byte value, two labels, the managedFields entry the
//    apiserver adds on create.
//  - Pods of realistic size: two containers (ports, env, probes, resources, mounts, security
//    contexts), labels and annotations as a Deployment's pods carry them, written by two field
//    managers (a server-side apply of the whole pod, then one of a label and an annotation by a
//    second manager), so managedFields hold two entries as on a real cluster. No node runs them:
//    they stay Pending, which changes nothing for a cache.
// Creating 100,000 objects is the slow part of a run (the apiserver and etcd share the machine):
// many requests in flight on one client, whose agent keeps connections alive; all but the first
// go into etcd directly when the bench knows its URL (see fillThroughEtcd); and BENCH_KUBECONFIG
// (with BENCH_ETCD_URL) runs a bench on a control plane that is already up, creating only the
// objects that are missing, so several benches share one set of objects.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

const pad = (i) => String(i).padStart(6, '0');

/** ConfigMap number `i` (namespace `namespace`). */
export function configMap(i, namespace) {
  return {
    metadata: { name: `cm-${pad(i)}`, namespace, labels: { app: 'bench', index: String(i) } },
    data: { payload: 'x'.repeat(500) },
  };
}

/** Pod number `i`: what one replica of a two-container Deployment looks like, as its first manager applies it. */
export function pod(i, namespace) {
  const instance = `web-${i % 100}`;
  const probe = (path) => ({
    httpGet: { path, port: 'http' },
    initialDelaySeconds: 5,
    periodSeconds: 10,
    timeoutSeconds: 2,
    failureThreshold: 3,
  });
  const restricted = {
    runAsNonRoot: true,
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ['ALL'] },
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${pad(i)}`,
      namespace,
      labels: {
        app: 'bench',
        index: String(i),
        'app.kubernetes.io/name': 'web',
        'app.kubernetes.io/instance': instance,
        'app.kubernetes.io/version': '2.14.1',
        'pod-template-hash': '6b8f7d9c4f',
      },
      annotations: {
        'kubectl.kubernetes.io/default-container': 'web',
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
      },
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/platform/web:2.14.1',
          args: ['--listen=:8080', '--metrics=:9090', '--log-format=json', `--instance=${instance}`],
          ports: [
            { name: 'http', containerPort: 8080, protocol: 'TCP' },
            { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
          ],
          env: [
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
            { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'CACHE_SIZE_MB', value: '64' },
            { name: 'UPSTREAM_URL', value: 'http://api.backend.svc.cluster.local:8080' },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } },
          readinessProbe: probe('/readyz'),
          livenessProbe: probe('/healthz'),
          volumeMounts: [
            { name: 'config', mountPath: '/etc/web', readOnly: true },
            { name: 'tmp', mountPath: '/tmp' },
          ],
          securityContext: restricted,
        },
        {
          name: 'log-shipper',
          image: 'registry.example.com/platform/log-shipper:0.9.4',
          args: ['--input=/var/log/web', '--output=http://logs.observability.svc:9880'],
          resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '64Mi' } },
          volumeMounts: [{ name: 'tmp', mountPath: '/var/log/web', readOnly: true }],
          securityContext: restricted,
        },
      ],
      volumes: [
        { name: 'config', configMap: { name: 'web-config' } },
        { name: 'tmp', emptyDir: { sizeLimit: '64Mi' } },
      ],
      securityContext: {
        runAsUser: 10001,
        runAsGroup: 10001,
        fsGroup: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      terminationGracePeriodSeconds: 30,
    },
  };
}

/** What a second field manager (a labeller, a policy agent) applies to pod `i`. */
export function podLabels(i, namespace) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${pad(i)}`,
      namespace,
      labels: { 'team.example.com/owner': `team-${i % 7}` },
      annotations: { 'policy.example.com/checked': '2026-11-27T00:00:00Z' },
    },
  };
}

/**
 * The control plane a bench starts when it creates many objects (startControlPlane's options):
 * its apiserver stores JSON, so that `ensureObjects` can put most of them into etcd directly (see
 * fillThroughEtcd). The encoding in etcd changes nothing a client sees: the apiserver decodes
 * what it stored and encodes each answer as the client asks.
 */
export const CONTROL_PLANE_WITH_JSON_STORAGE = { apiServerArgs: ['--storage-media-type=application/json'] };

/**
 * The kinds a bench can fill a namespace with: how object `i` is written through the
 * apiserver, and how a stored copy of another is made object `i` (fillThroughEtcd).
 */
export const KINDS = {
  configmaps: {
    prefix: 'cm-',
    resource: 'configmaps',
    write: async (client, type, i, namespace) => {
      try {
        await client.create(type, configMap(i, namespace));
      } catch (err) {
        if (err?.code !== 409) throw err;
      }
    },
    restamp: (copy, i, namespace) => {
      const { name, labels } = configMap(i, namespace).metadata;
      Object.assign(copy.metadata, { name, labels });
      return copy;
    },
  },
  pods: {
    prefix: 'pod-',
    resource: 'pods',
    write: applyPodAsTwoManagers,
    restamp: (copy, i, namespace) => {
      const wanted = pod(i, namespace);
      const labelled = podLabels(i, namespace).metadata;
      copy.metadata.name = wanted.metadata.name;
      copy.metadata.labels = { ...wanted.metadata.labels, ...labelled.labels };
      copy.metadata.annotations = { ...wanted.metadata.annotations, ...labelled.annotations };
      copy.spec.containers[0].args = wanted.spec.containers[0].args;
      return copy;
    },
  },
};

/**
 * Makes objects 0 … count-1 of `kind` exist in `namespace` (created with the namespace when
 * missing), creating only those not there yet, `concurrency` requests at a time. Returns how many
 * it created and how long that took.
 */
export async function ensureObjects(client, types, kind, namespace, count, { concurrency = 64, log, etcdUrl } = {}) {
  const { coreV1NamespaceType, coreV1ConfigMapType, coreV1PodType } = types;
  const type = kind === 'pods' ? coreV1PodType : coreV1ConfigMapType;
  try {
    await client.create(coreV1NamespaceType, { metadata: { name: namespace } });
  } catch (err) {
    if (err?.code !== 409) throw err;
  }
  const existing = new Set();
  for (let token; ;) {
    const page = await client.list(type, { namespace, limit: 5000, continue: token });
    for (const item of page.items) existing.add(item.metadata.name);
    token = page.metadata.continue || undefined;
    if (!token) break;
  }
  const { write, prefix } = KINDS[kind];
  const missing = [];
  for (let i = 0; i < count; i++) if (!existing.has(`${prefix}${pad(i)}`)) missing.push(i);
  const started = Date.now();
  if (etcdUrl && missing.length > 1) {
    await fillThroughEtcd(client, type, kind, namespace, missing, etcdUrl, log);
    return { created: missing.length, seconds: (Date.now() - started) / 1000 };
  }
  let next = 0;
  let done = 0;
  const progress = setInterval(() => log?.(`  ${done} of ${missing.length} ${kind} created`), 30_000);
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < missing.length) {
          const i = missing[next++];
          await withRetries(() => write(client, type, i, namespace));
          done++;
        }
      }),
    );
  } finally {
    clearInterval(progress);
  }
  return { created: missing.length, seconds: (Date.now() - started) / 1000 };
}

/** Pod `i` as a Deployment's pod is written: the whole pod applied by one manager, a label and an annotation by another. */
async function applyPodAsTwoManagers(client, type, i, namespace) {
  await client.apply(type, pod(i, namespace), { fieldManager: 'bench-deployer', force: true });
  await client.apply(type, podLabels(i, namespace), { fieldManager: 'bench-labeller', force: true });
}

/** A loaded apiserver answers some creates with 429 or a timeout: try again a few times. */
async function withRetries(fn) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 5) throw err;
      await sleep(500 * attempt);
    }
  }
}

/**
 * Objects through etcd (`ensureObjects` with `etcdUrl`): a 2-core control plane creates about 45
 * Pods a second (two server-side applies each) and not many more ConfigMaps, so 100,000 would take
 * most of an hour. Only the first missing object is written through the apiserver, as
 * `ensureObjects` writes every one otherwise; its stored form, read back from etcd, is copied for
 * the others with each one's own name, uid and the fields that differ between objects (labels,
 * annotations, a Pod's arguments), and put into etcd directly, 100 to a transaction, where the
 * apiserver's watch of its storage picks them up. The copies carry what the apiserver stored for
 * the first (defaults, managedFields, creation time), so a cache lists the same objects as if
 * each had been written through the apiserver; the last one is read back through it and checked.
 * Needs an apiserver that stores JSON (CONTROL_PLANE_WITH_JSON_STORAGE): with the default
 * protobuf storage this throws before putting anything.
 */
async function fillThroughEtcd(client, type, kind, namespace, missing, etcdUrl, log) {
  const { prefix, resource, write, restamp } = KINDS[kind];
  const key = (i) => `/registry/${resource}/${namespace}/${prefix}${pad(i)}`;
  const [first, ...rest] = missing;
  await withRetries(() => write(client, type, first, namespace));
  const stored = await etcdGet(etcdUrl, key(first));
  if (!stored?.startsWith('{'))
    throw new Error('the apiserver does not store JSON: start it with --storage-media-type=application/json');
  const template = JSON.parse(stored);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const batches = [];
  // etcd takes up to 128 operations in one transaction (its --max-txn-ops).
  for (let at = 0; at < rest.length; at += 100) batches.push(rest.slice(at, at + 100));
  let next = 0;
  let done = 1;
  const progress = setInterval(() => log?.(`  ${done} of ${missing.length} ${kind} put into etcd`), 30_000);
  try {
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < batches.length) {
          const batch = batches[next++];
          const puts = batch.map((i) => {
            const copy = restamp(structuredClone(template), i, namespace);
            copy.metadata.uid = randomUUID();
            return { requestPut: { key: base64(key(i)), value: base64(JSON.stringify(copy)) } };
          });
          await withRetries(() => etcdCall(etcdUrl, 'txn', { success: puts }, agent));
          done += batch.length;
        }
      }),
    );
  } finally {
    clearInterval(progress);
    agent.destroy();
  }
  // What the apiserver serves for the last one, against what it stored for the first.
  const served = await client.get(type, { namespace, name: `${prefix}${pad(rest.at(-1))}` });
  const managers = (m) => (m.metadata.managedFields ?? []).map((f) => `${f.manager}/${f.operation}`).join();
  if (served.metadata.name !== `${prefix}${pad(rest.at(-1))}` || managers(served) !== managers(template))
    throw new Error(`${served.metadata.name} put into etcd is served with managedFields of ${managers(served)}`);
}

const base64 = (text) => Buffer.from(text).toString('base64');

async function etcdGet(etcdUrl, key) {
  const { kvs } = await etcdCall(etcdUrl, 'range', { key: base64(key) });
  return kvs?.[0] ? Buffer.from(kvs[0].value, 'base64').toString('utf8') : undefined;
}

/** One call of etcd's JSON gateway (`/v3/kv/<method>`). */
function etcdCall(etcdUrl, method, body, agent) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${etcdUrl}/v3/kv/${method}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(text))
            : reject(new Error(`etcd ${method}: ${res.statusCode} ${text.slice(0, 200)}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
