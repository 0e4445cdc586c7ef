/**
 * Rbac markers to config/rbac/role.yaml: a ClusterRole `manager-role` for cluster-wide
 * rules and a Role per namespace for `namespace=` rules. Rules are merged the way
 * controller-gen merges them — same groups/resources/names/URLs join their verbs, then
 * rules differing only in resources, then only in groups, then only in URLs are joined —
 * de-duplicated and sorted, and `core` means the core group "".
 */
import { generatedYamlDocuments } from '../scaffold/index.js';
import type { RbacMarker } from './rbac-markers.js';

/** The default role name, as Kubebuilder's config/rbac expects. */
export const MANAGER_ROLE = 'manager-role';

/** rbac.authorization.k8s.io/v1 PolicyRule; empty lists are left out. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** A ClusterRole or Role. */
export interface RoleObject {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'ClusterRole' | 'Role';
  metadata: { name: string; namespace?: string };
  rules: PolicyRule[];
}

interface WorkingRule {
  groups: string[];
  resources: string[];
  resourceNames: string[];
  urls: string[];
  verbs: string[];
}

const sortedUnique = (values: readonly string[]): string[] => [...new Set(values)].sort();
const join = (values: readonly string[]): string => sortedUnique(values).join('&');
const fullKey = (r: WorkingRule): string =>
  [join(r.groups), join(r.resources), join(r.resourceNames), join(r.urls)].join(' + ');

/** Merges rules that share all fields but one, the way controller-gen does, and sorts them. */
export function normaliseRules(input: readonly WorkingRule[]): PolicyRule[] {
  let rules = new Map<string, WorkingRule>();
  for (const rule of input) {
    const normalised: WorkingRule = {
      groups: sortedUnique(rule.groups.map((g) => (g === 'core' ? '' : g))),
      resources: sortedUnique(rule.resources),
      resourceNames: sortedUnique(rule.resourceNames),
      urls: sortedUnique(rule.urls),
      verbs: sortedUnique(rule.verbs),
    };
    const key = fullKey(normalised);
    const existing = rules.get(key);
    if (existing) existing.verbs = sortedUnique([...existing.verbs, ...normalised.verbs]);
    else rules.set(key, normalised);
  }
  const mergeBy = (keyWithout: (r: WorkingRule) => string, field: 'resources' | 'groups' | 'urls'): void => {
    const buckets = new Map<string, WorkingRule[]>();
    for (const key of [...rules.keys()].sort()) {
      const rule = rules.get(key)!;
      const bucketKey = keyWithout(rule);
      buckets.set(bucketKey, [...(buckets.get(bucketKey) ?? []), rule]);
    }
    const next = new Map<string, WorkingRule>();
    for (const bucket of buckets.values()) {
      const [first, ...others] = bucket;
      for (const other of others) first![field] = sortedUnique([...first![field], ...other[field]]);
      next.set(fullKey(first!), first!);
    }
    rules = next;
  };
  const verbs = (r: WorkingRule) => join(r.verbs);
  mergeBy((r) => [join(r.groups), join(r.resourceNames), join(r.urls), verbs(r)].join(' + '), 'resources');
  mergeBy((r) => [join(r.resources), join(r.resourceNames), join(r.urls), verbs(r)].join(' + '), 'groups');
  mergeBy((r) => [join(r.groups), join(r.resources), join(r.resourceNames), verbs(r)].join(' + '), 'urls');
  return [...rules.keys()].sort().map((key) => {
    const rule = rules.get(key)!;
    const out: PolicyRule = { verbs: rule.verbs.includes('*') ? ['*'] : rule.verbs };
    if (rule.groups.length > 0) out.apiGroups = rule.groups;
    if (rule.resources.length > 0) out.resources = rule.resources;
    if (rule.resourceNames.length > 0) out.resourceNames = rule.resourceNames;
    if (rule.urls.length > 0) out.nonResourceURLs = rule.urls;
    return out;
  });
}

/**
 * The roles for a set of markers: the ClusterRole first (always present, possibly with
 * no rules, so config/rbac's kustomization keeps working), then Roles by namespace.
 */
export function buildRoles(markers: readonly RbacMarker[], roleName = MANAGER_ROLE): RoleObject[] {
  const byRole = new Map<string, { namespace: string; name: string; rules: WorkingRule[] }>();
  byRole.set(`\u0000${roleName}`, { namespace: '', name: roleName, rules: [] });
  for (const marker of markers) {
    const namespace = marker.namespace ?? '';
    const name = marker.roleName ?? roleName;
    const key = `${namespace}\u0000${name}`;
    const entry = byRole.get(key) ?? { namespace, name, rules: [] };
    byRole.set(key, entry);
    // One rule per resource before merging, so rules sharing some resources merge cleanly.
    const resources = marker.resources.length > 0 ? marker.resources.map((r) => [r]) : [[]];
    for (const resource of resources) {
      entry.rules.push({
        groups: [...marker.groups],
        resources: resource,
        resourceNames: [...marker.resourceNames],
        urls: [...marker.urls],
        verbs: [...marker.verbs],
      });
    }
  }
  return [...byRole.keys()].sort().map((key) => {
    const { namespace, name, rules } = byRole.get(key)!;
    return namespace === ''
      ? {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name },
          rules: normaliseRules(rules),
        }
      : {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name, namespace },
          rules: normaliseRules(rules),
        };
  });
}

/** config/rbac/role.yaml: the generated-file header, then one document per role. */
export function formatRoles(roles: readonly RoleObject[]): string {
  return generatedYamlDocuments(roles);
}
