/**
 * How `kop create api` records a run in PROJECT: each flag writes its own key through its
 * declaration (create-api-flags.ts, `record`), and the run's entry joins what earlier runs
 * recorded for the kind/version.
 */
import { recordFlags } from '../project/command-flags.js';
import {
  controllerNamesOf,
  controllersOf,
  fullGroup,
  type ControllerNames,
  type ProjectFile,
  type ProjectResource,
} from '../project/index.js';
import { CREATE_API_FLAGS, type CreateApiFlags } from './create-api-flags.js';

/** The keys of a kind's entry in the order create api writes them; an entry from an earlier run keeps its own order. */
const RESOURCE_KEYS = ['group', 'version', 'kind', 'plural', 'domain', 'path', 'api'] as const;

/** What one run records: the values it settled for its flags, and the keys no flag gives. */
export interface RecordedRun {
  values: CreateApiFlags;
  /** The kind's domain (create api's own kinds are in the project's). */
  domain: string;
  /** The types file, recorded as the kind's `path` when the run scaffolded the types and the entry has none yet. */
  path: string;
}

/** Adds or updates the PROJECT entry of a kind/version, keeping what earlier runs recorded. */
export function recordResource(project: ProjectFile, run: RecordedRun): void {
  const recorded = {} as ProjectResource;
  recordFlags(CREATE_API_FLAGS, recorded, run.values);
  const fields: Partial<ProjectResource> = { ...recorded, domain: run.domain };
  const index = project.resources.findIndex(
    (r) =>
      r.kind === fields.kind && r.version === fields.version && fullGroup(r) === fullGroup(fields as ProjectResource),
  );
  const previous = index === -1 ? undefined : project.resources[index];
  // A path the entry has already stays: the rest of the run (the reconciler's import) reads the types from there.
  if (fields.api !== undefined) fields.path = previous?.path ?? run.path;
  const entry = {
    ...previous,
    ...Object.fromEntries(RESOURCE_KEYS.filter((key) => fields[key] !== undefined).map((key) => [key, fields[key]])),
  } as ProjectResource;
  addRecordedControllers(entry, recorded);
  if (index === -1) project.resources.push(entry);
  else project.resources[index] = entry;
}

/**
 * Records a reconciler of a kind this project does not own in its entry (from PROJECT, the
 * import or the built-in kinds), and the entry in PROJECT when it is not there yet.
 */
export function recordUnownedController(
  project: ProjectFile,
  entry: ProjectResource,
  controllerName: string | undefined,
): void {
  const recorded = {} as ProjectResource;
  recordFlags(CREATE_API_FLAGS, recorded, { controller: true, controllerName });
  addRecordedControllers(entry, recorded);
  if (!project.resources.includes(entry)) project.resources.push(entry);
}

/** The reconciler a run recorded (`controller` and `controller-name`), joined to the ones the kind has. */
function addRecordedControllers(entry: ProjectResource, run: ProjectResource): void {
  if (run.controller === true) addController(entry, controllerNamesOf(entry.kind), false);
  for (const { name } of run.controllers ?? []) addController(entry, controllerNamesOf(entry.kind, name), true);
}

/**
 * Records a reconciler as Kubebuilder does: the unnamed one as `controller: true` while the
 * kind has no named ones; a named one in `controllers:`, where an earlier `controller: true`
 * moves as the one named after the lower-case kind.
 */
function addController(entry: ProjectResource, controller: ControllerNames, named: boolean): void {
  // Only the names are recorded: the layout does not matter here.
  const list = controllersOf(entry);
  if (!named && (entry.controllers ?? []).length === 0) {
    entry.controller = true;
    return;
  }
  if (!list.some((c) => c.stem === controller.stem)) list.push(controller);
  // The name as given (the file stem): in a multigroup project the manager registers the kind's
  // unnamed one as <group>-<kind>, but PROJECT records it as Kubebuilder does, by the lower-case kind.
  entry.controllers = list.map((c) => ({ name: c.stem }));
  delete entry.controller;
}
