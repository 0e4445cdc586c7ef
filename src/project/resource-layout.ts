/**
 * The file layout of a kind/version in a project and its wiring into the files `kop init`
 * scaffolds: `kop create api` writes these files and lines, and `kop init --force`
 * re-inserts the lines of the resources PROJECT records.
 */
import { insertIntoFile, type Insertion } from '../scaffold/insert.js';
import type { VirtualTree } from '../scaffold/tree.js';
import { fullGroup, type ProjectResource } from './project-file.js';
import { singularOf } from './resource.js';

/** Files and markers `kop create api` writes, for tests and other generators. */
export const CREATE_API_PATHS = {
  typesFile: (r: ResourceNames) => `api/${r.group}/${r.version}/${r.kindLower}.types.ts`,
  groupVersionFile: (r: ResourceNames) => `api/${r.group}/${r.version}/groupversion.ts`,
  sampleFile: (r: ResourceNames) => `config/samples/${r.sampleName}.yaml`,
  /** The kind's unnamed reconciler; a named one is {@link CREATE_API_PATHS.namedControllerFile}. */
  controllerFile: (r: Pick<ResourceNames, 'kindLower'>) => `src/controllers/${r.kindLower}.controller.ts`,
  controllerTestFile: (r: Pick<ResourceNames, 'kindLower'>) => `test/controllers/${r.kindLower}.controller.test.ts`,
  namedControllerFile: (c: Pick<ControllerNames, 'stem'>) => `src/controllers/${c.stem}.controller.ts`,
  namedControllerTestFile: (c: Pick<ControllerNames, 'stem'>) => `test/controllers/${c.stem}.controller.test.ts`,
  globalSetup: 'test/global-setup.ts',
  samplesKustomization: 'config/samples/kustomization.yaml',
  /** A kind's admin, editor and viewer ClusterRoles (Kubebuilder's helper roles), one per kind, not per version. */
  roleFiles: (r: Pick<ResourceNames, 'roleStem'>) => ROLE_LEVELS.map((level) => `config/rbac/${r.roleStem}_${level}_role.yaml`),
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
  /** Its file: src/controllers/<stem>.controller.ts. */
  stem: string;
  /** Its class, exported from that file and constructed in src/main.ts. */
  className: string;
}

/**
 * A kind's reconciler: the unnamed one (`controllerName` undefined) is `<kind>Reconciler` in
 * `<kind-lower>.controller.ts`, registered as `<kind-lower>`; a named one (`--controller-name
 * captain-backup`) is `CaptainBackupReconciler` in `captain-backup.controller.ts`, registered
 * as `captain-backup`; the name equal to the lower-case kind is the unnamed one (as in Kubebuilder).
 */
export function controllerNamesOf(kind: string, controllerName?: string): ControllerNames {
  const kindLower = singularOf(kind);
  if (controllerName === undefined || controllerName === kindLower) return { name: kindLower, stem: kindLower, className: `${kind}Reconciler` };
  const pascal = controllerName
    .split('-')
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  return { name: controllerName, stem: controllerName, className: `${pascal}Reconciler` };
}

/** The reconcilers PROJECT records for a kind/version: `controller: true` and each of `controllers:`. */
export function controllersOf(resource: Pick<ProjectResource, 'kind' | 'controller' | 'controllers'>): ControllerNames[] {
  const named = (resource.controllers ?? []).map((c) => controllerNamesOf(resource.kind, c.name));
  if (resource.controller === true && !named.some((c) => c.stem === singularOf(resource.kind))) named.unshift(controllerNamesOf(resource.kind));
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
export function roleStemOf(resource: { group: string; kind: string; domain: string }, resources: readonly ProjectResource[]): string {
  const kindLower = singularOf(resource.kind);
  const full = fullGroup(resource);
  const first = resources.findIndex((r) => r.kind === resource.kind && fullGroup(r) === full);
  const earlier = first === -1 ? resources : resources.slice(0, first);
  return earlier.some((r) => r.kind === resource.kind && fullGroup(r) !== full) ? `${resource.group}_${kindLower}` : kindLower;
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

/**
 * Stages the lines create api places at scaffold markers: the sample in
 * config/samples/kustomization.yaml and the kind's helper roles that exist in
 * config/rbac/kustomization.yaml, and the reconciler's import and construction in
 * src/main.ts. Lines already there are skipped, so this also re-wires a re-scaffolded project.
 */
export async function insertResourceWiring(
  tree: VirtualTree,
  names: Pick<ResourceNames, 'kind' | 'kindLower' | 'sampleName' | 'roleStem'>,
  wiring: { sample: boolean; controller: boolean },
): Promise<void> {
  if (wiring.sample) {
    await insertIntoFile(tree, CREATE_API_PATHS.samplesKustomization, [{ marker: 'samples', code: `- ${names.sampleName}.yaml` }]);
    // A project from before the roles existed has neither the files nor the marker: nothing to list.
    const roles: Insertion[] = [];
    for (const file of CREATE_API_PATHS.roleFiles(names)) {
      // One insertion per line, so a line the user removed is not re-added with duplicates of the others.
      if (await tree.exists(file)) roles.push({ marker: 'rbac', code: `- ${file.slice('config/rbac/'.length)}` });
    }
    if (roles.length > 0) await insertIntoFile(tree, CREATE_API_PATHS.rbacKustomization, roles);
  }
  if (wiring.controller) await insertControllerWiring(tree, controllerNamesOf(names.kind));
}

/** Stages a reconciler's import and construction in src/main.ts (skipped when already there). */
export async function insertControllerWiring(tree: VirtualTree, controller: ControllerNames): Promise<void> {
  await insertIntoFile(tree, CREATE_API_PATHS.main, [
    { marker: 'imports', code: `import { ${controller.className} } from './controllers/${controller.stem}.controller.js';` },
    // The manager runs it on every change to its kind (kop/runtime's controller builder).
    { marker: 'controllers', code: `new ${controller.className}().setupWithManager(manager);` },
  ]);
}
