/**
 * The file layout of a kind/version in a project and its wiring into the files `kop init`
 * scaffolds: `kop create api` writes these files and lines, and `kop init --force`
 * re-inserts the lines of the resources PROJECT records.
 */
import * as path from 'node:path';
import { insertIntoFile, type Insertion } from '../scaffold/index.js';
import type { VirtualTree } from '../scaffold/index.js';
import { fullGroup, type ProjectResource } from './project-file.js';
import { descriptorNameOf, singularOf } from './resource.js';
import { originOf } from './resource-origin.js';

/** Files and markers `kop create api` writes, for tests and other generators. */
export const CREATE_API_PATHS = {
  typesFile: (r: Pick<ResourceNames, 'group' | 'version' | 'kindLower'>) =>
    `api/${r.group}/${r.version}/${r.kindLower}.types.ts`,
  groupVersionFile: (r: ResourceNames) => `api/${r.group}/${r.version}/groupversion.ts`,
  sampleFile: (r: ResourceNames) => `config/samples/${r.sampleName}.yaml`,
  /** The kind's unnamed reconciler in a single-group project; in general {@link CREATE_API_PATHS.namedControllerFile}. */
  controllerFile: (r: Pick<ResourceNames, 'kindLower'>) => `src/controllers/${r.kindLower}.controller.ts`,
  controllerTestFile: (r: Pick<ResourceNames, 'kindLower'>) => `test/controllers/${r.kindLower}.controller.test.ts`,
  /** A reconciler's file: src/controllers/[<group>/]<stem>.controller.ts (the group folder in multigroup projects). */
  namedControllerFile: (c: Pick<ControllerNames, 'dir' | 'stem'>) => `src/controllers/${c.dir}${c.stem}.controller.ts`,
  namedControllerTestFile: (c: Pick<ControllerNames, 'dir' | 'stem'>) =>
    `test/controllers/${c.dir}${c.stem}.controller.test.ts`,
  globalSetup: 'test/global-setup.ts',
  samplesKustomization: 'config/samples/kustomization.yaml',
  /** A kind's admin, editor and viewer ClusterRoles (Kubebuilder's helper roles), one per kind, not per version. */
  roleFiles: (r: Pick<ResourceNames, 'roleStem'>) =>
    ROLE_LEVELS.map((level) => `config/rbac/${r.roleStem}_${level}_role.yaml`),
  rbacKustomization: 'config/rbac/kustomization.yaml',
  main: 'src/main.ts',
} as const;

/** The names of one kind/version that file names and templates use. */
export interface ResourceNames {
  group: string;
  version: string;
  kind: string;
  kindLower: string;
  plural: string;
  fullGroup: string;
  apiVersion: string;
  /** `<group>_<version>_<kind-lower>`, the sample's file stem. */
  sampleName: string;
  /** Stem of the kind's role files (`<stem>_admin_role.yaml`): see {@link roleStemOf}. */
  roleStem: string;
}

/** The names of one reconciler of a kind. */
export interface ControllerNames {
  /** The name it is registered under with the manager: it labels its logs and metrics. */
  name: string;
  /** Its file's stem: src/controllers/<dir><stem>.controller.ts. */
  stem: string;
  /** The folder under src/controllers/ and test/controllers/: `''`, or `<group>/` in a multigroup project. */
  dir: string;
  /** Its class, exported from that file. */
  className: string;
  /** The name src/main.ts imports the class under: the class name, or `<Group><Class>` in a multigroup project. */
  localName: string;
  /** From the reconciler's folder (and its test's) back to the project root: `../../` or `../../../`. */
  toRoot: string;
}

/**
 * The group folder of a kind's reconcilers: its group in a multigroup project (PROJECT
 * `multigroup: true`, as Kubebuilder's internal/controller/<group>/), none otherwise or for the
 * empty group (a kind in the domain itself).
 */
export function controllerGroupOf(project: { multigroup?: boolean }, group: string): string | undefined {
  return project.multigroup === true && group !== '' ? group : undefined;
}

/** `sea-creatures` -> `SeaCreatures`, `batch.apps` -> `BatchApps`. */
function pascalOf(value: string): string {
  return value
    .split(/[-.]/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/**
 * A kind's reconciler: the unnamed one (`controllerName` undefined) is `<kind>Reconciler` in
 * `<kind-lower>.controller.ts`, registered as `<kind-lower>`; a named one (`--controller-name
 * captain-backup`) is `CaptainBackupReconciler` in `captain-backup.controller.ts`, registered
 * as `captain-backup`; the name equal to the lower-case kind is the unnamed one (as in Kubebuilder).
 * With `group` (see {@link controllerGroupOf}) the files live in the group's folder, main.ts
 * imports the class as `<Group><Class>`, and the unnamed one is registered as `<group>-<kind-lower>`
 * (Kubebuilder's multigroup controller name), so the same kind in two groups never clashes.
 */
export function controllerNamesOf(kind: string, controllerName?: string, group?: string): ControllerNames {
  const kindLower = singularOf(kind);
  const unnamed = controllerName === undefined || controllerName === kindLower;
  const stem = unnamed ? kindLower : controllerName;
  const className = unnamed ? `${kind}Reconciler` : `${pascalOf(controllerName)}Reconciler`;
  if (group === undefined) return { name: stem, stem, dir: '', className, localName: className, toRoot: '../../' };
  return {
    // Kubebuilder's multigroup controller name: the group as it is, a dash, the lower-case kind.
    name: unnamed ? `${group}-${kindLower}` : stem,
    stem,
    dir: `${group}/`,
    className,
    localName: `${pascalOf(group)}${className}`,
    toRoot: '../../../',
  };
}

/** The reconcilers PROJECT records for a kind/version: `controller: true` and each of `controllers:`, placed by the project's layout. */
export function controllersOf(
  resource: Pick<ProjectResource, 'kind' | 'group' | 'controller' | 'controllers'>,
  project: { multigroup?: boolean } = {},
): ControllerNames[] {
  const group = controllerGroupOf(project, resource.group);
  const named = (resource.controllers ?? []).map((c) => controllerNamesOf(resource.kind, c.name, group));
  if (resource.controller === true && !named.some((c) => c.stem === singularOf(resource.kind)))
    named.unshift(controllerNamesOf(resource.kind, undefined, group));
  return named;
}

/** The helper roles `kop create api` scaffolds for each kind, from most to least power. */
export const ROLE_LEVELS = ['admin', 'editor', 'viewer'] as const;

/**
 * The stem of a kind's role files and names: the lower-case kind, as Kubebuilder names them
 * (`memcached_admin_role.yaml`, role `memcached-admin-role`), or `<group>_<kind>` when a kind of
 * the same name in another group came first in PROJECT (Kubebuilder's multigroup naming), so
 * two groups' kinds never share a role. `resources` is PROJECT's list; only entries before the
 * kind's first one count, so adding a kind never renames the roles of one already there.
 */
export function roleStemOf(
  resource: { group: string; kind: string; domain: string },
  resources: readonly ProjectResource[],
): string {
  const kindLower = singularOf(resource.kind);
  const full = fullGroup(resource);
  const first = resources.findIndex((r) => r.kind === resource.kind && fullGroup(r) === full);
  const earlier = first === -1 ? resources : resources.slice(0, first);
  return earlier.some((r) => r.kind === resource.kind && fullGroup(r) !== full)
    ? `${resource.group}_${kindLower}`
    : kindLower;
}

/**
 * The names of a kind/version recorded in PROJECT, as create api derived them; `resources`
 * (PROJECT's list) decides the role stem, see {@link roleStemOf}.
 */
export function resourceNamesOf(resource: ProjectResource, resources: readonly ProjectResource[] = []): ResourceNames {
  const kindLower = singularOf(resource.kind);
  const full = fullGroup(resource);
  return {
    group: resource.group,
    version: resource.version,
    kind: resource.kind,
    kindLower,
    plural: resource.plural,
    fullGroup: full,
    apiVersion: `${full}/${resource.version}`,
    sampleName: `${resource.group}_${resource.version}_${kindLower}`,
    roleStem: roleStemOf(resource, resources),
  };
}

/** Where code imports a kind's typed client and types from. */
export interface KindModules {
  /** The typed client `kop generate` writes beside the types: it exports the kind's descriptor. */
  descriptorModule: string;
  typesModule: string;
}

/**
 * The module specifiers of a kind's typed client and types (the folder of its types file: the
 * recorded `path`, else where create api scaffolds it), from a file that reaches the project root
 * through `toRoot` (`../../` from src/controllers/, `../../../../` from src/webhooks/<group>/<version>/).
 */
export function kindModulesOf(
  resource: Pick<ProjectResource, 'group' | 'version' | 'kind' | 'path'>,
  toRoot: string,
): KindModules {
  const kindLower = singularOf(resource.kind);
  const typesFile =
    resource.path ?? CREATE_API_PATHS.typesFile({ group: resource.group, version: resource.version, kindLower });
  const dir = `${toRoot}${path.posix.dirname(typesFile)}`;
  return { descriptorModule: `${dir}/${kindLower}.client.js`, typesModule: `${dir}/${kindLower}.types.js` };
}

/**
 * Stages the lines create api places at scaffold markers: the sample in
 * config/samples/kustomization.yaml and the kind's helper roles that exist in
 * config/rbac/kustomization.yaml (a reconciler's lines: {@link insertControllerWiring}). Lines already there are skipped, so this also re-wires a re-scaffolded project.
 */
export async function insertResourceWiring(
  tree: VirtualTree,
  names: Pick<ResourceNames, 'kind' | 'kindLower' | 'sampleName' | 'roleStem'>,
  wiring: { sample: boolean },
): Promise<void> {
  if (wiring.sample) {
    await insertIntoFile(tree, CREATE_API_PATHS.samplesKustomization, [
      { marker: 'samples', code: `- ${names.sampleName}.yaml` },
    ]);
    // A project from before the roles existed has neither the files nor the marker: nothing to list.
    const roles: Insertion[] = [];
    for (const file of CREATE_API_PATHS.roleFiles(names)) {
      // One insertion per line, so a line the user removed is not re-added with duplicates of the others.
      if (await tree.exists(file)) roles.push({ marker: 'rbac', code: `- ${file.slice('config/rbac/'.length)}` });
    }
    if (roles.length > 0) await insertIntoFile(tree, CREATE_API_PATHS.rbacKustomization, roles);
  }
}

/** The sharding example of a fresh src/main.ts, before any kind exists: its last two lines. */
const SHARDING_EXAMPLE_UNNAMED =
  /^( *)\/\/ with the kind's descriptor from its client module \(`kop create api` names its first kind here\):\n( *\/\/ sharding: \{ name: '[^']*', types: \[)myKindType(\] \},)$/m;

/** The same two lines once a kind is named: its descriptor and the module it comes from. */
const SHARDING_EXAMPLE_NAMED =
  /^ *\/\/ with import \{ (\w+) \} from '([^']+)':\n *\/\/ sharding: \{ name: '[^']*', types: \[\1\] \},$/m;

/** `content` with its unnamed sharding example naming `descriptor` from `module` (unchanged if it names one already). */
function nameInShardingExample(content: string, descriptor: string, module: string): string {
  return content.replace(
    SHARDING_EXAMPLE_UNNAMED,
    (_all, indent: string, head: string, tail: string) =>
      `${indent}// with import { ${descriptor} } from '${module}':\n${head}${descriptor}${tail}`,
  );
}

/**
 * `rendered` (main.ts as a template renders it) with its sharding example naming the kind
 * `main` (the project's main.ts) names there, so a merge of the two does not see the naming as
 * the user's edit.
 */
export function withShardingExampleOf(main: string, rendered: string): string {
  const named = SHARDING_EXAMPLE_NAMED.exec(main);
  return named ? nameInShardingExample(rendered, named[1]!, named[2]!) : rendered;
}

/**
 * Names `resource` in src/main.ts's commented sharding example while it still names no kind, so
 * uncommenting it (and the import it names) turns sharding on. Once named, or edited, it stays.
 */
export async function nameKindInShardingExample(
  tree: VirtualTree,
  resource: Pick<ProjectResource, 'group' | 'version' | 'kind' | 'path'>,
): Promise<void> {
  const main = await tree.read(CREATE_API_PATHS.main);
  if (main === undefined || !SHARDING_EXAMPLE_UNNAMED.test(main)) return;
  const { descriptorModule } = kindModulesOf(resource, '../');
  await tree.update(CREATE_API_PATHS.main, (content) =>
    nameInShardingExample(content, descriptorNameOf(resource.kind), descriptorModule),
  );
}

/**
 * Puts the project's reconcilers back into a freshly rendered src/main.ts (`init --force`, `edit
 * --force`): each one PROJECT records whose file exists, at the markers, and the sharding example
 * naming the first of the project's own kinds with one, as create api named it.
 */
export async function rewireControllers(
  tree: VirtualTree,
  project: { resources: readonly ProjectResource[]; multigroup?: boolean },
): Promise<void> {
  for (const resource of project.resources) {
    for (const controller of controllersOf(resource, project)) {
      if (!(await tree.exists(CREATE_API_PATHS.namedControllerFile(controller)))) continue;
      await insertControllerWiring(tree, controller);
      if (originOf(resource).type === 'own') await nameKindInShardingExample(tree, resource);
    }
  }
}

/** Stages a reconciler's import and construction in src/main.ts (skipped when already there). */
export async function insertControllerWiring(tree: VirtualTree, controller: ControllerNames): Promise<void> {
  await insertIntoFile(tree, CREATE_API_PATHS.main, controllerWiringLines(controller));
}

/** A reconciler's two lines in src/main.ts, at their markers. */
export function controllerWiringLines(controller: ControllerNames): Insertion[] {
  const imported =
    controller.localName === controller.className
      ? controller.className
      : `${controller.className} as ${controller.localName}`;
  return [
    {
      marker: 'imports',
      code: `import { ${imported} } from './controllers/${controller.dir}${controller.stem}.controller.js';`,
    },
    // The manager runs it on every change to its kind (kop/runtime's controller builder).
    { marker: 'controllers', code: `new ${controller.localName}().setupWithManager(manager);` },
  ];
}

/**
 * Moves a rendered reconciler template (src/controllers/<stem>.controller.ts, or its test under
 * test/controllers/) into the reconciler's folder; other paths are returned as they are.
 */
export function placeControllerFile(renderedPath: string, controller: Pick<ControllerNames, 'dir'>): string {
  const match = /^(src|test)\/controllers\/([^/]+)$/.exec(renderedPath);
  return match && controller.dir !== '' ? `${match[1]}/controllers/${controller.dir}${match[2]}` : renderedPath;
}
