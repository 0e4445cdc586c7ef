/**
 * Built-in Kubernetes kinds as Kubebuilder names them on the command line (`--group core
 * --version v1 --kind Pod`, `--group apps ... --kind Deployment`), found among kop/runtime/builtin's
 * descriptors: kop keeps no table of its own, so a kind is built-in exactly when kop/runtime/builtin
 * exports a descriptor for it (and kop/api its type).
 */
import * as descriptors from '../runtime/builtin/index.js';
import type { ResourceType } from '../runtime/index.js';

/** The domain Kubebuilder gives a core group (its `coreGroups`): empty for the legacy and unsuffixed groups, `k8s.io` for the others. */
const UNSUFFIXED_GROUPS = new Set(['core', 'apps', 'autoscaling', 'batch', 'extensions', 'policy']);

/** A built-in kind: its kop/runtime/builtin descriptor and what PROJECT records for it. */
export interface BuiltinKind {
  /** The kop/runtime/builtin descriptor (its `group` is the API group: `""` for core). */
  type: ResourceType;
  /** The descriptor's exported name in kop/runtime/builtin (coreV1PodType). */
  descriptor: string;
  /** The kind's type name in kop/api (Pod). */
  typeName: string;
  /** PROJECT's entry, as Kubebuilder writes it for a core kind. */
  project: { group: string; domain: string; path: string; core: true };
}

/** Every descriptor kop/runtime/builtin exports for a built-in kind, by its exported name. */
export function builtinTypes(): [name: string, type: ResourceType][] {
  return Object.entries(descriptors as Record<string, unknown>).filter((entry): entry is [string, ResourceType] =>
    isResourceType(entry[1]),
  );
}

/**
 * The built-in kind for Kubebuilder's `--group/--version/--kind`, where `group` is `core` for the
 * legacy group, `apps`/`batch` for those, and the first label of the `*.k8s.io` groups
 * (`coordination`, `events`); the full group (`events.k8s.io`) is accepted too. Undefined when
 * kop/runtime/builtin has no descriptor for it.
 */
export function findBuiltinKind(group: string, version: string, kind: string): BuiltinKind | undefined {
  const apiGroups = group === 'core' ? [''] : [group, `${group}.k8s.io`];
  const found = builtinTypes().find(([, t]) => t.kind === kind && t.version === version && apiGroups.includes(t.group));
  if (found === undefined) return undefined;
  const [descriptor, type] = found;
  const projectGroup = type.group === '' ? 'core' : type.group.replace(/\.k8s\.io$/, '');
  return {
    type,
    descriptor,
    typeName: kind,
    project: {
      group: projectGroup,
      domain: UNSUFFIXED_GROUPS.has(projectGroup) ? '' : 'k8s.io',
      path: `k8s.io/api/${projectGroup}/${version}`,
      core: true,
    },
  };
}

function isResourceType(value: unknown): value is ResourceType {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<ResourceType>;
  return (
    typeof candidate.kind === 'string' &&
    typeof candidate.version === 'string' &&
    typeof candidate.group === 'string' &&
    typeof candidate.resource === 'string'
  );
}

/** `apps/v1 Deployment, core/v1 ConfigMap, ...`: every built-in kind kop knows, for error messages. */
export function describeBuiltinKinds(): string {
  return builtinTypes()
    .map(([, type]) => `${type.group === '' ? 'core' : type.group}/${type.version} ${type.kind}`)
    .join(', ');
}
