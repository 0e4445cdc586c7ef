/**
 * The built-in Kubernetes kinds a reconciler can be scaffolded for: exactly those kop/runtime
 * has a descriptor for (src/runtime/client/typed/builtin-types.ts, generated with kop/api's
 * types by hack/gen-core-types.ts), so a scaffolded reconciler always compiles against them.
 */
import * as builtins from '../runtime/client/typed/builtin-types.js';
import type { ResourceType } from '../runtime/client/resource/options.js';
import { descriptorNameOf } from '../project/resource.js';

/** A built-in kind and the name of its descriptor in kop/runtime. */
export interface BuiltinKind {
  /** The descriptor's export name in kop/runtime (`deploymentType`). */
  descriptor: string;
  type: ResourceType;
}

/** Every descriptor kop/runtime exports, read from the module itself (no second list to keep in step). */
export function builtinKinds(): BuiltinKind[] {
  return Object.entries(builtins as Record<string, ResourceType>)
    .filter(([name, type]) => typeof type === 'object' && name === descriptorNameOf(type.kind))
    .map(([descriptor, type]) => ({ descriptor, type }));
}

/**
 * The built-in kind `--group <group> --version <version> --kind <kind>` names. Kubebuilder's
 * spellings of a group are accepted: `core` (or "") for the core group, and the part before
 * `.k8s.io` (`events` for events.k8s.io), as well as the full group.
 */
export function findBuiltinKind(group: string, version: string, kind: string): BuiltinKind | undefined {
  return builtinKinds().find(({ type }) => type.kind === kind && type.version === version && builtinGroupMatches(type.group, group));
}

function builtinGroupMatches(actual: string, given: string): boolean {
  if (actual === '') return given === '' || given === 'core';
  return given === actual || `${given}.k8s.io` === actual;
}

/** How Kubebuilder records a built-in kind's group and domain in PROJECT: `core` + "", `apps` + "", `events` + `k8s.io`. */
export function projectGroupOf(type: Pick<ResourceType, 'group'>): { group: string; domain: string } {
  if (type.group === '') return { group: 'core', domain: '' };
  if (type.group.endsWith('.k8s.io')) return { group: type.group.slice(0, -'.k8s.io'.length), domain: 'k8s.io' };
  return { group: type.group, domain: '' };
}

/** `apps/v1 Deployment, v1 ConfigMap, ...`, for error messages. */
export function describeBuiltinKinds(): string {
  return builtinKinds()
    .map(({ type }) => `${type.group === '' ? 'core' : type.group}/${type.version} ${type.kind}`)
    .join(', ');
}
