/**
 * Which version of a kind is its storage version: the rule (`decideStorageVersion`) that `kop
 * generate` applies to the parsed model, and its use by the commands that edit types before
 * generate reads them: create api (the hub a new version converts through) and create webhook (the
 * hub of a conversion must be the marked version). It lives here, not in project/, because it
 * reads the markers of each version's types file, and below schema/, which uses the rule.
 */
import { CREATE_API_PATHS, resourceNamesOf, type ProjectResource } from '../project/index.js';
import type { VirtualTree } from '../scaffold/index.js';
import { declarationMarkers, type CommentMarker } from './collect.js';

/** The marker on the root type of the version etcd stores. */
export const STORAGE_VERSION_MARKER = '+kubebuilder:storageversion';

/** True when a marker line is `marker`, or `marker` with arguments. */
export function isMarker(text: string, marker: string): boolean {
  return text === marker || text.startsWith(`${marker}:`) || text.startsWith(`${marker}=`);
}

/** A version of a kind whose root type carries {@link STORAGE_VERSION_MARKER}, and the marker line. */
export interface StorageVersionMark {
  resource: ProjectResource;
  marker: CommentMarker;
}

/**
 * The versions of a kind (`sameKind`, PROJECT's entries of one kind and group) that carry
 * {@link STORAGE_VERSION_MARKER}, in PROJECT's order. Only versions with types kop scaffolded
 * (`api`) are read; the marker is found where `kop generate` finds it (`declarationMarkers`).
 */
export async function storageVersionMarks(
  tree: VirtualTree,
  sameKind: readonly ProjectResource[],
): Promise<StorageVersionMark[]> {
  const marks: StorageVersionMark[] = [];
  for (const resource of sameKind) {
    if (!resource.api) continue;
    const file = resource.path ?? CREATE_API_PATHS.typesFile(resourceNamesOf(resource));
    const markers = await declarationMarkers((await tree.read(file)) ?? '', file, resource.kind);
    const marker = markers?.find((m) => isMarker(m.text, STORAGE_VERSION_MARKER));
    if (marker !== undefined) marks.push({ resource, marker });
  }
  return marks;
}

/** What {@link decideStorageVersion} found among a kind's versions. */
export interface StorageVersionDecision<V> {
  /** The storage version, or undefined where the rule leaves it open. */
  storage: V | undefined;
  /** The versions marked {@link STORAGE_VERSION_MARKER}, in the order given. */
  marked: V[];
}

/**
 * The one rule for a kind's storage version, shared by `kop generate` (schema/kinds.ts, over the
 * parsed model) and create api / create webhook ({@link storageVersionOf}, over the types files):
 * the version marked {@link STORAGE_VERSION_MARKER} when exactly one is, or the kind's only version,
 * marked or not. With several versions and none or more than one marked it is open; each caller says
 * what that means (generate refuses the kind, create api and create webhook pick the hub to convert through).
 */
export function decideStorageVersion<V>(
  versions: readonly V[],
  isMarked: (version: V) => boolean,
): StorageVersionDecision<V> {
  const marked = versions.filter(isMarked);
  if (marked.length === 1) return { storage: marked[0], marked };
  return { storage: marked.length === 0 && versions.length === 1 ? versions[0] : undefined, marked };
}

/**
 * The storage version of a kind by {@link decideStorageVersion}. Where the rule leaves it open, the
 * hub a conversion would convert through: the first version marked (generate refuses the kind until
 * only one is), else the first one the kind had (`marked` false: the conversion marks it).
 */
export async function storageVersionOf(
  tree: VirtualTree,
  sameKind: readonly ProjectResource[],
): Promise<{ hub: string; marked: boolean }> {
  const marks = await storageVersionMarks(tree, sameKind);
  const { storage, marked } = decideStorageVersion(sameKind, (r) => marks.some((mark) => mark.resource === r));
  const hub = storage ?? marked[0] ?? sameKind[0]!;
  return { hub: hub.version, marked: marked.includes(hub) };
}
