/**
 * An object of each built-in kind that the API server accepts as it is, for the test scaffolded
 * with a built-in kind's reconciler (it creates one and waits for the reconcile). Objects are
 * keyed by kind; a kind kop/runtime gains without a sample here gets its test refused by
 * test/create-api/create-api-unowned.test.ts, which scaffolds every built-in kind.
 */
import type { BuiltinKind } from '../project/index.js';

type ResourceType = BuiltinKind['type'];

/** `apps/v1`, or `v1` for the core group. */
function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

const IMAGE = 'registry.k8s.io/pause:3.10';
const podSpec = (restartPolicy?: string) => ({
  ...(restartPolicy ? { restartPolicy } : {}),
  containers: [{ name: 'app', image: IMAGE }],
});
const labels = { app: 'sample' };

const BODIES: Readonly<Record<string, Record<string, unknown>>> = {
  ConfigMap: { data: { greeting: 'hello' } },
  Secret: { stringData: { password: 'not-a-secret' } },
  Service: { spec: { ports: [{ port: 80 }] } },
  ServiceAccount: {},
  Pod: { spec: podSpec() },
  Namespace: {},
  PersistentVolumeClaim: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  Deployment: {
    spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec() } },
  },
  StatefulSet: {
    spec: {
      serviceName: 'sample',
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: podSpec() },
    },
  },
  Job: { spec: { template: { spec: podSpec('Never') } } },
  CronJob: { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: podSpec('Never') } } } } },
  Event: {
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'example.com/sample',
    reportingInstance: 'sample',
    action: 'Sample',
    reason: 'Sample',
    type: 'Normal',
    note: 'a sample event',
  },
  Lease: { spec: { holderIdentity: 'sample' } },
};

/** The sample object of a built-in kind as a TypeScript literal (JSON, indented for the test file); a clear error for a kind without one. */
export function builtinSampleLiteral(type: ResourceType, kindLower: string): string {
  const body = BODIES[type.kind];
  if (body === undefined)
    throw new Error(
      `kop has no sample ${type.kind} for the reconciler test; add one to src/create-api/builtin-samples.ts`,
    );
  const object = {
    apiVersion: apiVersionOf(type),
    kind: type.kind,
    metadata: { generateName: `${kindLower}-`, ...(type.namespaced ? { namespace: 'default' } : {}) },
    ...body,
  };
  return tsLiteral(object, '    ');
}

/** A plain JSON value as a TypeScript literal in the scaffold's style: bare keys, single quotes, two-space indents. */
function tsLiteral(value: unknown, indent: string): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value))
    return value.length === 0
      ? '[]'
      : `[\n${value.map((item) => `${inner}${tsLiteral(item, inner)},`).join('\n')}\n${indent}]`;
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : `'${name}'`);
  return `{\n${entries.map(([name, item]) => `${inner}${key(name)}: ${tsLiteral(item, inner)},`).join('\n')}\n${indent}}`;
}
