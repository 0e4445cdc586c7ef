/**
 * An object of each built-in kind that the API server accepts as it is, one table for every
 * scaffold that creates one: the test of a built-in kind's reconciler (create api; it creates one
 * and waits for the reconcile) and the tests of a built-in kind's webhooks (create webhook). Objects
 * are keyed by kind; a kind kop/runtime gains without a sample here gets its reconciler test
 * refused by test/create-api/create-api-unowned.test.ts, which scaffolds every built-in kind.
 */
import type { BuiltinKind } from './builtin-kinds.js';

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
      `kop has no sample ${type.kind} for the reconciler test; add one to src/project/builtin-samples.ts`,
    );
  const object = {
    apiVersion: apiVersionOf(type),
    kind: type.kind,
    metadata: { generateName: `${kindLower}-`, ...(type.namespaced ? { namespace: 'default' } : {}) },
    ...body,
  };
  return tsLiteral(object, '    ');
}

/**
 * The members of a built-in kind's sample after apiVersion, kind and metadata, on one line
 * (`spec: { ... },`; Prettier breaks it in the scaffolded file): empty for a kind whose sample has
 * none, or that has no sample.
 */
export function builtinSampleFields(kind: string): string {
  return Object.entries(BODIES[kind] ?? {})
    .map(([name, value]) => `${keyOf(name)}: ${tsLiteral(value)},`)
    .join(' ');
}

/** An object key as the scaffold writes it: bare when it is an identifier, else quoted. */
function keyOf(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : `'${name}'`;
}

/**
 * A plain JSON value as a TypeScript literal in the scaffold's style: bare keys, single quotes,
 * two-space indents below `indent`, or on one line without it.
 */
function tsLiteral(value: unknown, indent?: string): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const items = Array.isArray(value)
    ? value.map((item) => tsLiteral(item, indent === undefined ? undefined : `${indent}  `))
    : Object.entries(value).map(
        ([name, item]) => `${keyOf(name)}: ${tsLiteral(item, indent === undefined ? undefined : `${indent}  `)}`,
      );
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) return `${open}${close}`;
  if (indent === undefined) return Array.isArray(value) ? `[${items.join(', ')}]` : `{ ${items.join(', ')} }`;
  return `${open}\n${items.map((item) => `${indent}  ${item},`).join('\n')}\n${indent}${close}`;
}
