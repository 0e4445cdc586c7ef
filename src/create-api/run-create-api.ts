import { askChecked, askYesNo } from '../base/ask.js';
import type { Context } from '../base/context.js';
import { KopError, UsageError } from '../base/errors.js';
import { fullGroup, loadProjectFile, saveProjectFile, type ProjectFile, type ProjectResource } from '../project/project-file.js';
import { CREATE_API_PATHS, insertResourceWiring, resourceNamesOf, roleStemOf, type ResourceNames } from '../project/resource-layout.js';
import { checkGroup, checkKind, checkVersion, descriptorNameOf, isDns1123Label, pluralOf, requireValid, singularOf, type NameCheck } from '../project/resource.js';
import { applyTree, type ApplyResult } from '../scaffold/apply.js';
import { loadBoilerplate } from '../scaffold/boilerplate.js';
import { renderTemplateDir, type TemplateData } from '../scaffold/render.js';
import { VirtualTree } from '../scaffold/tree.js';

/** `kop create api`'s flags; anything left undefined is asked for on a TTY or defaulted. */
export interface CreateApiOptions {
  group?: string;
  version?: string;
  kind?: string;
  plural?: string;
  /** Namespaced (default) or cluster-scoped objects. */
  namespaced?: boolean;
  /** Scaffold the API types, sample and PROJECT entry (default yes). */
  resource?: boolean;
  /** Scaffold a reconciler and register it in src/main.ts (default yes). */
  controller?: boolean;
  force?: boolean;
  /** Server-side apply (Kubebuilder's --ssa): typed apply configurations and a reconciler that applies; needs --resource. */
  ssa?: boolean;
}

/**
 * Names the scaffolded and generated files import or use as types (kop/api, kop/runtime, vitest,
 * TypeScript's own): a kind of that name would clash with them, and the project would not compile.
 * test/unit/reserved-kinds.test.ts checks that every such name in the templates is listed.
 */
export const RESERVED_KIND_NAMES: ReadonlySet<string> = new Set([
  // kop/api, in the types file
  'Condition', 'ListMeta', 'ObjectMeta',
  // kop/runtime, in the reconciler, its test and the generated client
  'Client', 'Manager', 'ReconcileContext', 'ReconcileResult', 'Request', 'ResourceClient', 'ResourceType', 'RestClient',
  'NamespacedResourceClient', 'ScalableResourceClient',
  // TypeScript and JavaScript names the generated code uses
  'Array', 'Boolean', 'Date', 'Error', 'Function', 'JSON', 'Map', 'Math', 'Number', 'Object', 'Partial', 'Promise', 'Readonly',
  'Record', 'RegExp', 'Set', 'String', 'Symbol',
]);

const checkKindName: NameCheck = (value) => {
  const result = checkKind(value);
  if (result !== true) return result;
  return RESERVED_KIND_NAMES.has(value)
    ? `invalid kind ${JSON.stringify(value)}: the scaffolded or generated code already uses the name ${value}, so a kind cannot have it (e.g. "${value}Set" or "App${value}")`
    : true;
};

/** File systems allow at most 255 bytes in one file name (ext4, APFS, NTFS...). */
const MAX_FILE_NAME_BYTES = 255;

/**
 * The names derived from a kind must hold too: its plural is a DNS label, the CRD name
 * `<plural>.<group>` a DNS subdomain, and the files named after them (the CRD kop generate
 * writes, the sample) fit in a file name.
 */
function checkDerivedNames(kind: string, plural: string, fullGroupName: string, pluralGiven: boolean, sample: { group: string; version: string }): void {
  if (!isDns1123Label(plural)) {
    throw new UsageError(
      `${pluralGiven ? '--plural' : `--kind ${kind}`}: the plural "${plural}" is ${plural.length} characters; the CRD needs a plural of at most 63`,
      pluralGiven ? 'pass a shorter --plural' : 'pass a shorter --plural, or pick a shorter kind',
    );
  }
  const crdName = `${plural}.${fullGroupName}`;
  if (crdName.length > 253) {
    throw new UsageError(`the CRD name "${crdName.slice(0, 40)}..." would be ${crdName.length} characters; at most 253 are allowed`, 'pick a shorter --group, --plural or domain');
  }
  const files = [
    // As schema/crd.ts names a CRD's file.
    { what: 'the CRD file config/crd/bases/', name: `${fullGroupName}_${plural}.yaml`, hint: 'pick a shorter --group or --plural' },
    { what: 'the sample config/samples/', name: `${sample.group}_${sample.version}_${singularOf(kind)}.yaml`, hint: 'pick a shorter --group or --kind' },
  ];
  for (const file of files) {
    const bytes = Buffer.byteLength(file.name);
    if (bytes > MAX_FILE_NAME_BYTES) {
      throw new UsageError(`${file.what}${file.name.slice(0, 20)}... would have a name of ${bytes} characters; file names are limited to ${MAX_FILE_NAME_BYTES}`, file.hint);
    }
  }
}

const checkPlural: NameCheck = (value) =>
  isDns1123Label(value)
    ? true
    : `invalid plural ${JSON.stringify(value)}: a plural must be lower case — letters, digits and '-', starting and ending with a letter or digit, at most 63 characters (e.g. "memcacheds")`;

/**
 * Adds a kind (or a new version of one) to the project in `context.cwd`: records it in
 * PROJECT, scaffolds its types, group-version file and sample, and a reconciler wired
 * into src/main.ts. Nothing is written when any step fails; `--dry-run` prints the plan.
 */
export async function runCreateApi(options: CreateApiOptions, context: Context): Promise<ApplyResult> {
  const tree = new VirtualTree(context.cwd);
  const project = await loadProjectFile(tree);

  const group = await askChecked(context, options.group, checkGroup, { flag: '--group', type: 'text', message: 'API group (the part before the domain, e.g. cache)' });
  const version = await askChecked(context, options.version, checkVersion, { flag: '--version', type: 'text', message: 'API version (e.g. v1alpha1)', initial: 'v1alpha1' });
  const kind = await askChecked(context, options.kind, checkKindName, { flag: '--kind', type: 'text', message: 'Kind (UpperCamelCase, e.g. Memcached)' });
  const fullGroupName = fullGroup({ group, domain: project.domain });

  const sameKind = project.resources.filter((r) => r.kind === kind && fullGroup(r) === fullGroupName);
  const existing = sameKind.find((r) => r.version === version);
  const plural = resolvePlural(options.plural, kind, sameKind);
  checkDerivedNames(kind, plural, fullGroupName, options.plural !== undefined, { group, version });
  const namespaced = resolveScope(options.namespaced, kind, sameKind);
  checkConflicts(project, { group: fullGroupName, kind, plural });

  const resource = await askYesNo(context, options.resource, { flag: '--resource', type: 'confirm', message: `Create the ${kind} API types?`, initial: true });
  const controllerOwner = project.resources.find((r) => r.controller && r.kind === kind && fullGroup(r) !== fullGroupName);
  const kindHasController = sameKind.some((r) => r.controller);
  const controller = await askYesNo(context, options.controller, {
    flag: '--controller',
    type: 'confirm',
    message: `Create a reconciler for ${kind}?`,
    // One reconciler per kind: a new version of a kind that has one does not get a second.
    initial: !kindHasController && controllerOwner === undefined,
  });
  if (!resource && !controller) {
    throw new UsageError('nothing to create: both --resource and --controller are off', 'pass --resource, --controller, or both');
  }
  if (options.ssa && !resource) {
    throw new UsageError('--ssa is recorded with the API types, so it needs --resource', 'pass --resource with --ssa; a later --no-resource --controller run picks the apply reconciler from PROJECT');
  }
  // Once a kind version applies, it keeps doing so (as in Kubebuilder, --ssa cannot be undone by leaving it out).
  const ssa = options.ssa === true || existing?.api?.ssa === true;

  if (existing && !options.force) {
    // Name the files --force would overwrite, so the user sees what is at stake.
    const existingNames = resourceNamesOf(existing, project.resources);
    const present = async (files: string[]) => {
      const found = [];
      for (const file of files) if (await tree.existsOnDisk(file)) found.push(file);
      return found.length > 0 ? ` (${found.join(', ')})` : '';
    };
    const controllerFiles = [CREATE_API_PATHS.controllerFile(existingNames), CREATE_API_PATHS.controllerTestFile(existingNames)];
    if (resource && existing.api) {
      const files = await present([CREATE_API_PATHS.typesFile(existingNames), CREATE_API_PATHS.sampleFile(existingNames), ...(controller ? controllerFiles : [])]);
      throw new KopError(
        `${kind} ${fullGroupName}/${version} already exists in PROJECT${files}; kop create api wrote nothing`,
        'pass --force to scaffold its files again (overwriting them), or pick another --version to add a version',
      );
    }
    if (controller && existing.controller) {
      throw new KopError(`${kind} ${fullGroupName}/${version} already has a reconciler${await present(controllerFiles)}; kop create api wrote nothing`, 'pass --force to scaffold it again');
    }
  }
  if (controller && controllerOwner) {
    throw new KopError(
      `a reconciler for kind ${kind} of group ${fullGroup(controllerOwner)} already uses src/controllers/${singularOf(kind)}.controller.ts`,
      'pass --no-controller and write this reconciler under another name',
    );
  }

  const names: ResourceNames = {
    group,
    version,
    kind,
    kindLower: singularOf(kind),
    plural,
    fullGroup: fullGroupName,
    apiVersion: `${fullGroupName}/${version}`,
    sampleName: `${group}_${version}_${singularOf(kind)}`,
    roleStem: roleStemOf({ group, kind, domain: project.domain }, project.resources),
  };
  const roleName = (level: string) => `${names.roleStem.replace(/_/g, '-')}-${level}-role`;
  const data: TemplateData = {
    ...names,
    projectName: project.projectName,
    sampleObjectName: `${singularOf(kind)}-sample`,
    descriptor: descriptorNameOf(kind),
    namespaced,
    resourceMarker: resourceMarker(names, namespaced),
    pluralStatus: `${plural}/status`,
    roleNameAdmin: roleName('admin'),
    roleNameEditor: roleName('editor'),
    roleNameViewer: roleName('viewer'),
    licenseHeaderTs: await loadBoilerplate(tree, 'x.ts'),
    licenseHeaderYaml: await loadBoilerplate(tree, 'x.yaml'),
  };
  const force = options.force ?? false;

  if (resource) {
    for (const file of await renderTemplateDir('api/groupversion', data)) {
      // Shared by every kind of the version and the user's to extend: never overwritten.
      await tree.scaffold(file.path, file.content, { ifExists: 'skip' });
    }
    for (const file of await renderTemplateDir('api/resource', data)) await tree.scaffold(file.path, file.content, { force });
    // One set of roles per kind: a new version of the kind keeps the roles it has.
    for (const file of await renderTemplateDir('api/roles', data)) await tree.scaffold(file.path, file.content, { force, ifExists: 'skip' });
    await insertResourceWiring(tree, names, { sample: true, controller: false });
  } else if (!(await tree.exists(CREATE_API_PATHS.typesFile(names)))) {
    throw new KopError(
      `there are no ${kind} types at ${CREATE_API_PATHS.typesFile(names)} for the reconciler to use`,
      'pass --resource to scaffold them too',
    );
  }

  if (controller) {
    // With --ssa the reconciler writes with server-side apply (templates/api/controller-ssa).
    for (const file of await renderTemplateDir(ssa ? 'api/controller-ssa/controller' : 'api/controller', data)) await tree.scaffold(file.path, file.content, { force });
    // The test reaches the control plane that test/global-setup.ts (from kop init) starts.
    if (await tree.exists(CREATE_API_PATHS.globalSetup)) {
      for (const file of await renderTemplateDir(ssa ? 'api/controller-ssa/test' : 'api/controller-test', data)) await tree.scaffold(file.path, file.content, { force });
    } else {
      context.out.warn(`no reconciler test: the project has no ${CREATE_API_PATHS.globalSetup} to start a control plane for it`);
    }
    await insertResourceWiring(tree, names, { sample: false, controller: true });
  }

  recordResource(project, {
    group,
    version,
    kind,
    plural,
    domain: project.domain,
    resource,
    controller,
    namespaced,
    ssa,
    path: CREATE_API_PATHS.typesFile(names),
  });
  saveProjectFile(tree, project);

  const result = await applyTree(tree, context);
  if (result.written) {
    context.out.info(`\nNext: edit ${CREATE_API_PATHS.typesFile(names)}, then run \`npm run generate\` for the CRD, RBAC role and typed client.`);
  }
  const versions = [...new Set([...sameKind.map((r) => r.version), version])].sort();
  if (resource && versions.length > 1) {
    context.out.warn(
      `${kind} now has versions ${versions.join(', ')}: mark exactly one of them with +kubebuilder:storageversion (in its root type's doc comment) before generating manifests`,
    );
  }
  return result;
}

/** A kind has one plural across its versions (the CRD has one); the default is the plural controller-gen gives it. */
function resolvePlural(given: string | undefined, kind: string, sameKind: readonly ProjectResource[]): string {
  const recorded = sameKind[0]?.plural;
  if (given !== undefined) {
    requireValid(checkPlural, given, '--plural');
    if (recorded !== undefined && recorded !== given) {
      throw new UsageError(`--plural: ${kind} already has the plural "${recorded}" (one CRD serves every version)`, `pass --plural ${recorded} or leave it out`);
    }
    return given;
  }
  return recorded ?? pluralOf(kind);
}

/** A kind has one scope across its versions. */
function resolveScope(given: boolean | undefined, kind: string, sameKind: readonly ProjectResource[]): boolean {
  const recorded = sameKind.find((r) => r.api)?.api?.namespaced;
  if (given !== undefined && recorded !== undefined && recorded !== given) {
    throw new UsageError(`--namespaced: ${kind} is already ${recorded ? 'namespaced' : 'cluster-scoped'} (one CRD serves every version)`);
  }
  return given ?? recorded ?? true;
}

/** Two kinds of one group cannot share a plural: they would be the same CRD. */
function checkConflicts(project: ProjectFile, wanted: { group: string; kind: string; plural: string }): void {
  const clash = project.resources.find((r) => fullGroup(r) === wanted.group && r.plural === wanted.plural && r.kind !== wanted.kind);
  if (clash) {
    throw new UsageError(
      `--plural: ${clash.kind} in ${wanted.group} already uses the plural "${wanted.plural}"`,
      `pass another --plural for ${wanted.kind}`,
    );
  }
}

/** `+kubebuilder:resource:` arguments, only where the defaults would be wrong. */
function resourceMarker(names: ResourceNames, namespaced: boolean): string {
  const args: string[] = [];
  if (names.plural !== pluralOf(names.kind)) args.push(`path=${names.plural}`);
  if (!namespaced) args.push('scope=Cluster');
  return args.join(',');
}

interface RecordedResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  domain: string;
  resource: boolean;
  controller: boolean;
  namespaced: boolean;
  ssa: boolean;
  path: string;
}

/** Adds or updates the PROJECT entry of a kind/version, keeping what earlier runs recorded. */
function recordResource(project: ProjectFile, wanted: RecordedResource): void {
  const index = project.resources.findIndex(
    (r) => r.kind === wanted.kind && r.version === wanted.version && fullGroup(r) === fullGroup(wanted),
  );
  const previous: ProjectResource | undefined = index === -1 ? undefined : project.resources[index];
  const entry: ProjectResource = {
    ...previous,
    group: wanted.group,
    version: wanted.version,
    kind: wanted.kind,
    plural: wanted.plural,
    domain: wanted.domain,
  };
  if (wanted.resource) {
    entry.path = wanted.path;
    entry.api = { crdVersion: 'v1', namespaced: wanted.namespaced, ...(wanted.ssa ? { ssa: true } : {}) };
  }
  if (wanted.controller) entry.controller = true;
  if (index === -1) project.resources.push(entry);
  else project.resources[index] = entry;
}
