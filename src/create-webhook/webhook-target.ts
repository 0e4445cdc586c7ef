/**
 * The kind a webhook is for, resolved once (project/resource-model.ts), and what its webhook files
 * import: create webhook's resolve phase.
 */
import { KopError } from '../base/index.js';
import {
  fullGroup,
  type ProjectFile,
  type ProjectResource,
  resolveResource,
  type Resource,
  CREATE_API_PATHS,
  resourceNamesOf,
  type ResourceNames,
  builtinSampleFields,
  descriptorNameOf,
  kindModulesOf,
  singularOf,
} from '../project/index.js';
import type { VirtualTree } from '../scaffold/index.js';
import type { CreateWebhookFlags } from './create-webhook-flags.js';

export interface WebhookTarget {
  /** The kind, resolved once (see project/resource-model.ts): its PROJECT entry records the webhooks. */
  resource: Resource;
  names: ResourceNames;
  namespaced: boolean;
  /** Where the webhook files import the kind's descriptor and type from. */
  imports: { descriptor: string; descriptorModule: string; descriptorTestModule: string; typesModule: string };
  /** The fields of an object the tests create, after metadata (TypeScript object-literal members). */
  sampleFields: string;
}

/**
 * Finds the kind a webhook is for (resolveResource: one of this project's, an external one
 * `kop import crd` recorded, or a built-in kind of kop/runtime's descriptors) and what its
 * webhook files import; a kind that is none of these, or lacks the version, is an error.
 */
export function resolveTarget(
  project: ProjectFile,
  gvk: { group: string; version: string; kind: string },
  options: CreateWebhookFlags,
): WebhookTarget {
  const { group, version, kind } = gvk;
  const external =
    options.externalApiDomain !== undefined ||
    options.externalApiPath !== undefined ||
    options.externalApiModule !== undefined;
  const found = resolveResource(project, {
    ...gvk,
    externalDomain: options.externalApiDomain,
    externalOnly: external,
  });
  const ownGroup = fullGroup({ group, domain: project.domain });
  const type = found?.type;
  if (found !== undefined && type === 'own') {
    const { resource, versions } = found;
    if (resource === undefined) {
      const listed = versions.map((r) => r.version);
      throw new KopError(
        `${kind} ${ownGroup}/${version} is not in PROJECT (it has ${listed.join(', ')}); kop create webhook wrote nothing`,
        `pass one of --version ${listed.join(', ')}, or add the version with \`kop create api\``,
      );
    }
    const names = resourceNamesOf(resource.entry);
    return {
      resource,
      names,
      namespaced: resource.entry.api?.namespaced ?? true,
      imports: kindImports(resource.entry, descriptorNameOf(kind)),
      sampleFields: 'spec: {},',
    };
  }
  if (found !== undefined && (type === 'imported' || type === 'package')) {
    const { resource, versions } = found;
    if (resource === undefined) {
      throw new KopError(
        `${kind} ${fullGroup(versions[0]!)}/${version} is not in PROJECT (kop import crd recorded ${versions.map((r) => r.version).join(', ')}); kop create webhook wrote nothing`,
        `pass one of --version ${versions.map((r) => r.version).join(', ')}, or import that version of the CRD with \`kop import crd\``,
      );
    }
    const names = resourceNamesOf(resource.entry);
    return {
      resource,
      names,
      // kop import crd records no scope for an external kind; its types file says it (requireExternalTypes reads it).
      namespaced: true,
      imports: kindImports(resource.entry, descriptorNameOf(kind)),
      sampleFields: '',
    };
  }
  if (external) {
    const wantedExternal =
      options.externalApiDomain !== undefined ? `${group}.${options.externalApiDomain}` : undefined;
    throw new KopError(
      `${kind} ${wantedExternal ?? group}/${version} is not an external kind of this project; kop create webhook wrote nothing`,
      'import its CRD first (kop import crd <file or folder>, or --from-cluster <name>): the webhook is written against the imported types and typed client',
    );
  }
  const resource = found?.resource;
  if (resource !== undefined && resource.origin.type === 'builtin' && resource.origin.builtin !== undefined) {
    const builtin = resource.origin.builtin;
    if (!resource.recorded) {
      // create webhook has always recorded a new built-in kind with `path` before `core`.
      const { core, path, ...rest } = resource.entry;
      resource.entry = { ...rest, path, core };
    }
    const names: ResourceNames = {
      group: resource.group,
      version,
      kind,
      kindLower: singularOf(kind),
      plural: builtin.type.resource,
      fullGroup: resource.fullGroup,
      apiVersion: resource.fullGroup === '' ? version : `${resource.fullGroup}/${version}`,
      sampleName: `${resource.group}_${version}_${singularOf(kind)}`,
      roleStem: singularOf(kind),
    };
    return {
      resource: { ...resource, versions: [resource.entry] },
      names,
      namespaced: builtin.type.namespaced,
      imports: {
        descriptor: builtin.descriptor,
        descriptorModule: 'kop/runtime/builtin',
        descriptorTestModule: 'kop/runtime/builtin',
        typesModule: 'kop/api',
      },
      sampleFields: builtinSampleFields(kind),
    };
  }
  throw new KopError(
    `${kind} ${ownGroup}/${version} is not in PROJECT, and ${kind} of group ${group} is no external kind and no built-in kind kop/runtime has a descriptor for; kop create webhook wrote nothing`,
    `add the kind first: kop create api --group ${group} --version ${version} --kind ${kind} (or import its CRD with kop import crd)`,
  );
}

/** What the webhook files (four folders below the root, as their tests) import of a kind with a typed client. */
function kindImports(entry: ProjectResource, descriptor: string): WebhookTarget['imports'] {
  const modules = kindModulesOf(entry, '../../../../');
  return { descriptor, ...modules, descriptorTestModule: modules.descriptorModule };
}

/**
 * An external kind's webhooks import its types and the typed client `kop generate` writes beside
 * them. Returns whether the kind is namespaced, which its types say with the resource marker
 * `kop import crd` wrote (`scope=Cluster` for a cluster-scoped kind), as for `kop generate`, and
 * whether the kind's interface declares `spec` required (no `?`).
 */
export async function requireExternalTypes(
  tree: VirtualTree,
  resource: ProjectResource,
  names: ResourceNames,
): Promise<{ namespaced: boolean; specRequired: boolean }> {
  const typesFile = resource.path ?? CREATE_API_PATHS.typesFile(names);
  const text = await tree.read(typesFile);
  if (text === undefined) {
    throw new KopError(
      `${names.kind} ${names.apiVersion} is recorded as external but has no types file (${typesFile}); kop create webhook wrote nothing`,
      'import its CRD again with `kop import crd`',
    );
  }
  const kindInterface = new RegExp(`^export interface ${names.kind} \\{\\n([^]*?)^\\}`, 'm').exec(text)?.[1] ?? '';
  return {
    namespaced: !/^[ \t]*(?:\*|\/\/)[ \t]*\+kubebuilder:resource:[^\n]*\bscope=Cluster\b/m.test(text),
    specRequired: /^[ \t]*spec:/m.test(kindInterface),
  };
}

/** A kind of this project gets webhooks only with its types there. */
export async function requireTypes(tree: VirtualTree, resource: ProjectResource, names: ResourceNames): Promise<void> {
  const typesFile = resource.path ?? CREATE_API_PATHS.typesFile(names);
  // Types the user wrote by hand (`create api --resource=false` records no api) serve as well as scaffolded ones.
  if (!(await tree.exists(typesFile))) {
    throw new KopError(
      `${names.kind} ${names.apiVersion} has no types file (${typesFile}): its webhooks need the types; kop create webhook wrote nothing`,
      `scaffold them with \`kop create api --group ${names.group} --version ${names.version} --kind ${names.kind} --resource\``,
    );
  }
}
