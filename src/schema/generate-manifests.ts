/**
 * The `manifests` generator: CRDs from the API types (config/crd/bases/<group>_<plural>.yaml
 * and config/crd/kustomization.yaml) and the manager's role from rbac markers
 * (config/rbac/role.yaml).
 */
import { buildRoles, formatRoles } from '../rbac/role.js';
import { collectRbacMarkers } from '../rbac/rbac-markers.js';
import { GENERATED_HEADER } from '../scaffold/header.js';
import type { GeneratorInput } from '../generate/generator.js';
import { buildCrds, formatCrd, stringifyYaml } from './crd.js';
import { loadApiModel } from './model.js';

export const CRD_BASES_DIR = 'config/crd/bases';

export async function generate({ tree, project, context, options }: GeneratorInput): Promise<void> {
  const model = await loadApiModel(tree.root, { project });
  const crds = buildCrds(model, { maxDescriptionLength: options.maxDescriptionLength, allowDangerousTypes: options.allowDangerousTypes });
  for (const { fileName, crd } of crds) tree.write(`${CRD_BASES_DIR}/${fileName}`, formatCrd(crd), { kind: 'generated' });
  tree.write('config/crd/kustomization.yaml', formatCrdKustomization(crds.map((c) => `bases/${c.fileName}`)), { kind: 'generated' });

  const markers = await collectRbacMarkers(tree.root);
  let roles = buildRoles(markers);
  if (project.namespaced) {
    // A namespaced manager gets no ClusterRole: its cluster-wide rules become a Role in the
    // manager's namespace (kustomize's namespace transformer replaces "system").
    roles = roles.map((role) => (role.kind === 'ClusterRole' ? { ...role, kind: 'Role', metadata: { ...role.metadata, namespace: 'system' } } : role));
  }
  tree.write('config/rbac/role.yaml', formatRoles(roles), { kind: 'generated' });
  context.out.debug(`manifests: ${crds.length} CRD(s), ${markers.length} rbac marker(s)`);
}

/** config/crd/kustomization.yaml listing every CRD. */
export function formatCrdKustomization(resources: readonly string[]): string {
  return `# ${GENERATED_HEADER}\n${stringifyYaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [...resources].sort() })}`;
}
