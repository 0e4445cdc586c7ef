/**
 * The `manifests` generator: CRDs from the API types (config/crd/bases/<group>_<plural>.yaml
 * and config/crd/kustomization.yaml), the manager's role from rbac markers
 * (config/rbac/role.yaml) and the admission webhook configurations from webhook markers
 * (config/webhook/manifests.yaml, only when there are webhook markers).
 */
import { buildRoles, formatRoles } from '../rbac/role.js';
import { parseRbacMarkers, RBAC_SCAN_PREFIX } from '../rbac/rbac-markers.js';
import { collectCommentMarkers } from '../markers/collect.js';
import {
  buildWebhookConfigurations,
  formatWebhookConfigurations,
  WEBHOOK_MANIFESTS,
} from '../webhook/webhook-configuration.js';
import { parseWebhookMarkers, WEBHOOK_SCAN_PREFIX } from '../webhook/webhook-markers.js';
import {
  convertingCrds,
  CRD_KUSTOMIZE_CONFIG,
  formatConversionPatch,
  formatCrdKustomizeConfig,
  formatWebhookKustomization,
  formatWebhookReplacements,
  WEBHOOK_KUSTOMIZATION,
  WEBHOOK_REPLACEMENTS,
  type ConvertingKind,
} from '../webhook/webhook-kustomize.js';
import { fullGroup, type ProjectFile } from '../project/project-file.js';
import { conversionPatchFile } from '../project/webhook-layout.js';
import type { VirtualTree } from '../scaffold/tree.js';
import { isGenerated } from '../scaffold/header.js';
import { generatedYaml } from '../scaffold/yaml.js';
import { removeLeftoverGeneratedFiles } from './leftovers.js';
import type { GeneratorInput } from './generator.js';
import { buildCrds, formatCrd } from '../schema/crd.js';
import { largeCrdWarning, tooLargeForClientSideApply } from '../schema/crd-size.js';
import { loadApiModel } from '../schema/model.js';

export const CRD_BASES_DIR = 'config/crd/bases';

export async function generate({ tree, project, context, options }: GeneratorInput): Promise<void> {
  const loaded = await loadApiModel(tree.root, { project, collectProblems: true });
  // Kinds imported from another project (PROJECT's `external`) have types and clients here, never a CRD.
  const model = { ...loaded, kinds: loaded.kinds.filter((kind) => !isExternal(project, kind.group, kind.kind)) };
  const crds = buildCrds(model, {
    maxDescriptionLength: options.maxDescriptionLength,
    allowDangerousTypes: options.allowDangerousTypes,
    generateEmbeddedObjectMeta: options.generateEmbeddedObjectMeta,
  });
  for (const { fileName, crd } of crds) {
    const file = `${CRD_BASES_DIR}/${fileName}`;
    tree.write(file, formatCrd(crd), { kind: 'generated' });
    if (tooLargeForClientSideApply(crd)) context.out.warn(largeCrdWarning(file, crd, options.maxDescriptionLength));
  }
  // Conversion webhooks come from PROJECT (`kop create webhook --conversion`): the base CRD stays
  // as controller-gen makes it, and a kustomize patch per kind points its conversion at /convert.
  const converting = convertingCrds(convertingKinds(project), crds);
  const patches = converting.map((c) => conversionPatchFile(c.kind.plural));
  for (const [index, { crd }] of converting.entries())
    tree.write(patches[index]!, formatConversionPatch(crd.metadata.name), { kind: 'generated' });
  tree.write(
    'config/crd/kustomization.yaml',
    formatCrdKustomization(
      crds.map((c) => `bases/${c.fileName}`),
      patches,
    ),
    { kind: 'generated' },
  );
  if (patches.length > 0) tree.write(CRD_KUSTOMIZE_CONFIG, formatCrdKustomizeConfig(), { kind: 'generated' });
  await removeLeftoverGeneratedFiles(tree, CRD_BASES_DIR, (name) => name.endsWith('.yaml'), project.generated);
  await removeLeftoverGeneratedFiles(
    tree,
    'config/crd/patches',
    (name) => name.startsWith('webhook_in_') && name.endsWith('.yaml'),
    project.generated,
  );
  await removeIfGenerated(tree, CRD_KUSTOMIZE_CONFIG, project);

  const sourceMarkers = await collectCommentMarkers(tree.root, [RBAC_SCAN_PREFIX, WEBHOOK_SCAN_PREFIX]);
  const markers = parseRbacMarkers(sourceMarkers.get(RBAC_SCAN_PREFIX)!);
  let roles = buildRoles(markers);
  if (project.namespaced) {
    // A namespaced manager gets no ClusterRole: its cluster-wide rules become a Role in the
    // manager's namespace (kustomize's namespace transformer replaces "system").
    roles = roles.map((role) =>
      role.kind === 'ClusterRole'
        ? { ...role, kind: 'Role', metadata: { ...role.metadata, namespace: 'system' } }
        : role,
    );
  }
  tree.write('config/rbac/role.yaml', formatRoles(roles), { kind: 'generated' });

  const { webhooks, configurations } = parseWebhookMarkers(sourceMarkers.get(WEBHOOK_SCAN_PREFIX)!);
  const webhookConfigurations = buildWebhookConfigurations(webhooks, configurations);
  if (webhookConfigurations.length > 0) {
    tree.write(WEBHOOK_MANIFESTS, formatWebhookConfigurations(webhookConfigurations), { kind: 'generated' });
  } else {
    // The webhook markers are gone: their configuration goes too.
    await removeIfGenerated(tree, WEBHOOK_MANIFESTS, project);
  }
  // config/default refers to these once `kop create webhook` wired the webhooks in.
  if (webhookConfigurations.length > 0 || project.resources.some((r) => r.webhooks)) {
    tree.write(WEBHOOK_KUSTOMIZATION, formatWebhookKustomization(webhookConfigurations.length > 0), {
      kind: 'generated',
    });
    tree.write(
      WEBHOOK_REPLACEMENTS,
      formatWebhookReplacements(
        webhookConfigurations,
        converting.map((c) => c.crd.metadata.name),
      ),
      { kind: 'generated' },
    );
  } else {
    await removeIfGenerated(tree, WEBHOOK_KUSTOMIZATION, project);
    await removeIfGenerated(tree, WEBHOOK_REPLACEMENTS, project);
  }
  context.out.debug(
    `manifests: ${crds.length} CRD(s), ${markers.length} rbac marker(s), ${webhooks.length} webhook marker(s)`,
  );
}

/** config/crd/kustomization.yaml listing every CRD, and the conversion patches with the config they need. */
export function formatCrdKustomization(resources: readonly string[], patches: readonly string[] = []): string {
  const kustomization = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [...resources].sort(),
    ...(patches.length > 0
      ? {
          patches: [...patches].sort().map((file) => ({ path: file.replace(/^config\/crd\//, '') })),
          configurations: ['kustomizeconfig.yaml'],
        }
      : {}),
  };
  return generatedYaml(kustomization);
}

/** True when PROJECT records the kind as another project's (`kop import crd` without --own). */
function isExternal(project: ProjectFile, group: string, kind: string): boolean {
  return project.resources.some((r) => r.external === true && r.kind === kind && fullGroup(r) === group);
}

/** The kinds PROJECT says convert through a webhook, with their hub and spokes. */
function convertingKinds(project: ProjectFile): ConvertingKind[] {
  return project.resources
    .filter((r) => r.webhooks?.conversion)
    .map((r) => ({ group: fullGroup(r), kind: r.kind, hub: r.version, spokes: r.webhooks?.spoke ?? [] }));
}

/** Stages the removal of a file kop generated for this project and no longer produces. */
async function removeIfGenerated(tree: VirtualTree, file: string, project: ProjectFile): Promise<void> {
  if (tree.files().includes(file)) return;
  if (isGenerated((await tree.read(file)) ?? '') && (project.generated?.includes(file) ?? true)) tree.remove(file);
}
