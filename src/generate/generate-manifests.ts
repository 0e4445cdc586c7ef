/**
 * The `manifests` generator: CRDs from the API types (config/crd/bases/<group>_<plural>.yaml
 * and config/crd/kustomization.yaml), the manager's role from rbac markers
 * (config/rbac/role.yaml) and the admission webhook configurations from webhook markers
 * (config/webhook/manifests.yaml, only when there are webhook markers).
 */
import { buildRoles, formatRoles } from '../rbac/role.js';
import { parseRbacMarkers, RBAC_SCAN_PREFIX } from '../rbac/rbac-markers.js';
import { collectCommentMarkers } from '../schema/source-files.js';
import { buildWebhookConfigurations, formatWebhookConfigurations, WEBHOOK_MANIFESTS } from '../webhook/webhook-configuration.js';
import { parseWebhookMarkers, WEBHOOK_SCAN_PREFIX } from '../webhook/webhook-markers.js';
import { GENERATED_HEADER, isGenerated } from '../scaffold/header.js';
import { removeLeftoverGeneratedFiles } from './leftovers.js';
import type { GeneratorInput } from './generator.js';
import { buildCrds, formatCrd, stringifyYaml } from '../schema/crd.js';
import { loadApiModel } from '../schema/model.js';

export const CRD_BASES_DIR = 'config/crd/bases';

export async function generate({ tree, project, context, options }: GeneratorInput): Promise<void> {
  const model = await loadApiModel(tree.root, { project, collectProblems: true });
  const crds = buildCrds(model, { maxDescriptionLength: options.maxDescriptionLength, allowDangerousTypes: options.allowDangerousTypes });
  for (const { fileName, crd } of crds) tree.write(`${CRD_BASES_DIR}/${fileName}`, formatCrd(crd), { kind: 'generated' });
  tree.write('config/crd/kustomization.yaml', formatCrdKustomization(crds.map((c) => `bases/${c.fileName}`)), { kind: 'generated' });
  await removeLeftoverGeneratedFiles(tree, CRD_BASES_DIR, (name) => name.endsWith('.yaml'), project.generated);

  const sourceMarkers = await collectCommentMarkers(tree.root, [RBAC_SCAN_PREFIX, WEBHOOK_SCAN_PREFIX]);
  const markers = parseRbacMarkers(sourceMarkers.get(RBAC_SCAN_PREFIX)!);
  let roles = buildRoles(markers);
  if (project.namespaced) {
    // A namespaced manager gets no ClusterRole: its cluster-wide rules become a Role in the
    // manager's namespace (kustomize's namespace transformer replaces "system").
    roles = roles.map((role) => (role.kind === 'ClusterRole' ? { ...role, kind: 'Role', metadata: { ...role.metadata, namespace: 'system' } } : role));
  }
  tree.write('config/rbac/role.yaml', formatRoles(roles), { kind: 'generated' });

  const { webhooks, configurations } = parseWebhookMarkers(sourceMarkers.get(WEBHOOK_SCAN_PREFIX)!);
  const webhookConfigurations = buildWebhookConfigurations(webhooks, configurations);
  if (webhookConfigurations.length > 0) {
    tree.write(WEBHOOK_MANIFESTS, formatWebhookConfigurations(webhookConfigurations), { kind: 'generated' });
  } else if (isGenerated((await tree.read(WEBHOOK_MANIFESTS)) ?? '') && (project.generated?.includes(WEBHOOK_MANIFESTS) ?? true)) {
    // The webhook markers are gone: their configuration goes too.
    tree.remove(WEBHOOK_MANIFESTS);
  }
  context.out.debug(`manifests: ${crds.length} CRD(s), ${markers.length} rbac marker(s), ${webhooks.length} webhook marker(s)`);
}

/** config/crd/kustomization.yaml listing every CRD. */
export function formatCrdKustomization(resources: readonly string[]): string {
  return `# ${GENERATED_HEADER}\n${stringifyYaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [...resources].sort() })}`;
}
