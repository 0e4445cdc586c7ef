// Wall time of `kop generate manifests` on a project with 30 kinds of realistic size
// (nested structs, lists with listType=map, maps, enums, CEL rules, Quantity, Conditions
// and core types such as PodTemplateSpec) in 3 groups x 2 versions, with rbac markers on
// a controller and a mutating and a validating webhook marker per kind; prints the median
// and a breakdown of one in-process run (import, parse+model, schemas+CRDs, write).
// Needs `npm run build` first.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const kop = fileURLToPath(new URL('../bin/kop.js', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const runs = Number(process.env.RUNS ?? 5);
const dir = mkdtempSync(path.join(tmpdir(), 'kop-bench-manifests-'));

const GROUPS = ['cache', 'data', 'net'];
const VERSIONS = ['v1', 'v1beta1'];
const KINDS_PER_VERSION = 5;

function kindSource(kind, version, index) {
  const core = ['PodTemplateSpec', 'ResourceRequirements', 'EnvVar', 'Toleration', 'Affinity'][index % 5];
  return `import type { Condition, IntOrString, ObjectMeta, ListMeta, Quantity, Time, int32, int64, ${core} } from 'kop/api';

/** ${kind}Mode says how a ${kind} runs. */
export type ${kind}Mode = 'standalone' | 'replicated' | 'sharded';

/** ${kind}Endpoint is a named network endpoint. */
export interface ${kind}Endpoint {
  /** Name of the endpoint. */
  name: string;
  /** +kubebuilder:validation:Pattern=\`^[a-z0-9.-]+$\` */
  host: string;
  /**
   * +kubebuilder:validation:Minimum=1
   * +kubebuilder:validation:Maximum=65535
   * +kubebuilder:default=8080
   */
  port?: int32;
  /** TLS settings. */
  tls?: { enabled?: boolean; secretName?: string; serverName?: string };
}

/** ${kind}Backup configures backups. */
export interface ${kind}Backup {
  /** +kubebuilder:validation:Pattern=\`^(\\d+|\\*)( (\\d+|\\*)){4}$\` */
  schedule: string;
  retention?: int32;
  storage?: Quantity;
  labels?: Record<string, string>;
}

/**
 * ${kind}Spec is the desired state of a ${kind}.
 * +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas"
 */
export interface ${kind}Spec {
  /**
   * +kubebuilder:validation:Minimum=1
   * +kubebuilder:default=3
   */
  replicas?: int32;
  minReplicas: int32;
  maxReplicas: int32;
  mode?: ${kind}Mode;
  /** +kubebuilder:validation:MaxLength=253 */
  image: string;
  memory?: Quantity;
  maxUnavailable?: IntOrString;
  /**
   * +listType=map
   * +listMapKey=name
   */
  endpoints?: ${kind}Endpoint[];
  backup?: ${kind}Backup;
  settings?: Record<string, string>;
  limits?: Record<string, Quantity>;
  core?: ${core}${core === 'EnvVar' || core === 'Toleration' ? '[]' : ''};
  /** +k8s:immutable */
  storageClass?: string;
  generationLimit?: int64;
}

/** ${kind}Status is the observed state of a ${kind}. */
export interface ${kind}Status {
  replicas?: int32;
  selector?: string;
  lastBackup?: Time;
  /**
   * +listType=map
   * +listMapKey=type
   */
  conditions?: Condition[];
}

/**
 * ${kind} is kind ${index} of ${version}.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 * +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
 * +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=".spec.replicas"
 ${version === 'v1' ? '* +kubebuilder:storageversion' : '* +kubebuilder:deprecatedversion'}
 */
export interface ${kind} {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ${kind}Spec;
  status?: ${kind}Status;
}

/** +kubebuilder:object:root=true */
export interface ${kind}List {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: ${kind}[];
}
`;
}

function makeProject() {
  const resources = [];
  for (const group of GROUPS) {
    for (const version of VERSIONS) {
      const pkg = path.join(dir, 'api', group, version);
      mkdirSync(pkg, { recursive: true });
      writeFileSync(
        path.join(pkg, 'groupversion.ts'),
        `// +groupName=${group}.example.com\n\nexport const GROUP = '${group}.example.com';\n`,
      );
      for (let i = 0; i < KINDS_PER_VERSION; i++) {
        const kind = `${group[0].toUpperCase()}${group.slice(1)}Thing${i}`;
        writeFileSync(path.join(pkg, `${kind.toLowerCase()}.types.ts`), kindSource(kind, version, i));
        resources.push({ group, version, kind });
      }
    }
  }
  const controllers = path.join(dir, 'src', 'controllers');
  mkdirSync(controllers, { recursive: true });
  for (const { group, kind } of resources) {
    writeFileSync(
      path.join(controllers, `${kind.toLowerCase()}.controller.ts`),
      `// +kubebuilder:rbac:groups=${group}.example.com,resources=${kind.toLowerCase()}s,verbs=get;list;watch;update;patch\n// +kubebuilder:rbac:groups=${group}.example.com,resources=${kind.toLowerCase()}s/status,verbs=get;update;patch\nexport {};\n`,
    );
  }
  // A defaulting and a validating webhook per kind, as Kubebuilder's `create webhook` adds them.
  const webhooks = path.join(dir, 'src', 'webhooks');
  mkdirSync(webhooks, { recursive: true });
  for (const { group, version, kind } of resources) {
    const lower = kind.toLowerCase();
    const marker = (mutating) =>
      `// +kubebuilder:webhook:path=/${mutating ? 'mutate' : 'validate'}-${group}-example-com-${version}-${lower},mutating=${mutating},failurePolicy=fail,sideEffects=None,groups=${group}.example.com,resources=${lower}s,verbs=create;update,versions=${version},name=${mutating ? 'm' : 'v'}${lower}-${version}.kb.io,admissionReviewVersions=v1`;
    writeFileSync(
      path.join(webhooks, `${lower}-${version}.webhook.ts`),
      `${marker(true)}\n${marker(false)}\nexport {};\n`,
    );
  }
  const project = [
    'version: "1"',
    'layout:',
    '  - kop.dev/typescript/v1',
    'domain: example.com',
    'projectName: bench',
    'resources:',
    ...resources.map(
      (r) =>
        `  - { group: ${r.group}, version: ${r.version}, kind: ${r.kind}, plural: ${r.kind.toLowerCase()}s, domain: example.com, api: { crdVersion: v1, namespaced: true } }`,
    ),
  ].join('\n');
  writeFileSync(path.join(dir, 'PROJECT'), `${project}\n`);
  return resources.length;
}

function once() {
  rmSync(path.join(dir, 'config'), { recursive: true, force: true });
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [kop, 'generate', 'manifests'], { cwd: dir, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`kop generate manifests exited with ${result.status}: ${result.stderr}`);
  return ms;
}

async function breakdown() {
  const t0 = performance.now();
  const { loadApiModel } = await import(pathToFileURL(path.join(dist, 'schema/model.js')).href);
  const { buildCrds, formatCrd } = await import(pathToFileURL(path.join(dist, 'schema/crd.js')).href);
  createRequire(import.meta.url)('ts-morph');
  const t1 = performance.now();
  const model = await loadApiModel(dir);
  const t2 = performance.now();
  const crds = buildCrds(model);
  const t3 = performance.now();
  const bytes = crds.reduce((sum, c) => sum + formatCrd(c.crd).length, 0);
  const t4 = performance.now();
  return `import ${(t1 - t0).toFixed(0)} ms, parse+model ${(t2 - t1).toFixed(0)} ms, schemas+CRDs ${(t3 - t2).toFixed(0)} ms, YAML ${(t4 - t3).toFixed(0)} ms (${crds.length} CRDs, ${(bytes / 1024).toFixed(0)} KiB)`;
}

try {
  const kinds = makeProject();
  once();
  const times = Array.from({ length: runs }, () => once()).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(
    `kop generate manifests, ${kinds} kinds: median ${median.toFixed(0)} ms over ${runs} runs (min ${times[0].toFixed(0)}, max ${times.at(-1).toFixed(0)})`,
  );
  console.log(`in-process breakdown: ${await breakdown()}`);
} finally {
  if (process.env.KEEP) console.log(dir);
  else rmSync(dir, { recursive: true, force: true });
}
