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
// many requests in flight on one client, whose agent keeps connections alive, and
// BENCH_KUBECONFIG runs a bench on a control plane that is already up, creating only the
// objects that are missing, so several benches share one set of objects.
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

/** The kinds a bench can fill a namespace with. */
export const KINDS = {
  configmaps: { make: configMap, prefix: 'cm-' },
  pods: { make: pod, prefix: 'pod-' },
};

/**
 * Makes objects 0 … count-1 of `kind` exist in `namespace` (created with the namespace when
 * missing), creating only those not there yet, `concurrency` requests at a time. Returns how many
 * it created and how long that took.
 */
export async function ensureObjects(client, types, kind, namespace, count, { concurrency = 64, log } = {}) {
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
  const { make, prefix } = KINDS[kind];
  const missing = [];
  for (let i = 0; i < count; i++) if (!existing.has(`${prefix}${pad(i)}`)) missing.push(i);
  const started = Date.now();
  let next = 0;
  let done = 0;
  const progress = setInterval(() => log?.(`  ${done} of ${missing.length} ${kind} created`), 30_000);
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < missing.length) {
          const i = missing[next++];
          await withRetries(async () => {
            if (kind === 'pods') {
              await client.apply(type, make(i, namespace), { fieldManager: 'bench-deployer', force: true });
              await client.apply(type, podLabels(i, namespace), { fieldManager: 'bench-labeller', force: true });
            } else {
              try {
                await client.create(type, make(i, namespace));
              } catch (err) {
                if (err?.code !== 409) throw err;
              }
            }
          });
          done++;
        }
      }),
    );
  } finally {
    clearInterval(progress);
  }
  return { created: missing.length, seconds: (Date.now() - started) / 1000 };
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
