/**
 * The `manifests` generator: CRDs from the API types (config/crd/bases/<group>_<plural>.yaml
 * and config/crd/kustomization.yaml), the manager's role from rbac markers
 * (config/rbac/role.yaml) and the admission webhook configurations from webhook markers
 * (config/webhook/manifests.yaml, only when there are webhook markers).
 */
import { buildRoles, formatRoles } from '../rbac/index.js';
import { parseRbacMarkers, RBAC_SCAN_PREFIX } from '../rbac/index.js';
import { collectCommentMarkers } from '../markers/index.js';
import {
  buildWebhookConfigurations,
  formatWebhookConfigurations,
  WEBHOOK_MANIFESTS,
  parseWebhookMarkers,
  WEBHOOK_SCAN_PREFIX,
  convertingCrds,
  CRD_KUSTOMIZE_CONFIG,
  formatConversionPatch,
  formatCrdKustomizeConfig,
  formatWebhookKustomization,
  formatWebhookReplacements,
  WEBHOOK_KUSTOMIZATION,
  WEBHOOK_REPLACEMENTS,
  type ConvertingKind,
} from '../webhook-manifests/index.js';
import { fullGroup, type ProjectFile, conversionPatchFile } from '../project/index.js';
import { type VirtualTree, isGenerated, generatedYaml } from '../scaffold/index.js';
import { removeLeftoverGeneratedFiles } from './leftovers.js';
import type { Generator, GeneratorInput } from './generator.js';
import {
  buildCrds,
  formatCrd,
  type CustomResourceDefinition,
  schemaDifference,
  largeCrdWarning,
  tooLargeForClientSideApply,
  loadApiModel,
} from '../schema/index.js';
import type { Context } from '../base/index.js';

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
  for (const { crd } of crds) checkVersionConversion(crd, project, context);
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

/**
 * How a kind of several versions converts, checked against what its versions' schemas hold:
 * `create api --no-conversion` (PROJECT's `api.conversion: None`) writes `spec.conversion.strategy:
 * None` into the CRD, and is warned about when a version's schema differs from the storage
 * version's (the apiserver would drop what the other version has no field for); a kind with no
 * conversion is told when its versions are the same (no webhook needed) and warned when they differ;
 * a webhook over versions that are all the same is told it could be None.
 */
function checkVersionConversion(crd: CustomResourceDefinition, project: ProjectFile, context: Context): void {
  const { versions } = crd.spec;
  if (versions.length < 2) return;
  const entries = project.resources.filter((r) => r.kind === crd.spec.names.kind && fullGroup(r) === crd.spec.group);
  const hub = entries.find((r) => r.webhooks?.conversion);
  const none = hub === undefined && entries.some((r) => r.api?.conversion === 'None');
  if (none) crd.spec = { conversion: { strategy: 'None' }, ...crd.spec };
  const storage = versions.find((v) => v.storage) ?? versions[0]!;
  const differences = versions
    .filter((v) => v !== storage)
    .map((v) => ({
      version: v.name,
      at: schemaDifference(storage.schema.openAPIV3Schema, v.schema.openAPIV3Schema),
    }));
  const different = differences.filter((d) => d.at !== undefined);
  const name = crd.metadata.name;
  const others = versions.filter((v) => v !== storage).map((v) => v.name);
  const webhookCommand = (spokes: readonly string[]) =>
    `kop create webhook --group ${entries[0]?.group ?? crd.spec.group} --version ${storage.name} --kind ${crd.spec.names.kind} --conversion --spoke ${spokes.join(',')}`;
  if (hub !== undefined) {
    if (different.length === 0)
      context.out.info(
        `${name}: ${versions.map((v) => v.name).join(', ')} have the same schema, so the conversion webhook could go: without it the apiserver converts by apiVersion alone (strategy None)`,
      );
    return;
  }
  const described = different.map((d) => `${d.version} differs from ${storage.name} at ${d.at}`).join('; ');
  if (different.length > 0) {
    context.out.warn(
      `${name}: ${described}, and ${none ? 'PROJECT records conversion strategy None' : 'there is no conversion webhook'}: the apiserver converts between versions by apiVersion alone and drops what the other version has no field for; make the schemas the same, or scaffold the conversion: ${webhookCommand(others)}`,
    );
  } else if (!none) {
    context.out.info(
      `${name}: ${others.join(', ')} ${others.length === 1 ? 'has' : 'have'} the same schema as ${storage.name}, so no conversion webhook is needed: the apiserver converts by apiVersion alone (strategy None)`,
    );
  }
}

/** Stages the removal of a file kop generated for this project and no longer produces. */
async function removeIfGenerated(tree: VirtualTree, file: string, project: ProjectFile): Promise<void> {
  if (tree.files().includes(file)) return;
  if (isGenerated((await tree.read(file)) ?? '') && (project.generated?.includes(file) ?? true)) tree.remove(file);
}

/** `kop generate manifests`, as the generators table loads it. */
export const manifestsGenerator: Generator = { generate };
