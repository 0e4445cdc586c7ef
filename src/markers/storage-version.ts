/**
 * Which version of a kind is its storage version, decided once for the commands that edit types
 * before `kop generate` reads them: create api (the hub a new version converts through) and create
 * webhook (the hub of a conversion must be the marked version). It lives here, not in project/,
 * because it reads the markers of each version's types file.
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

/**
 * The storage version of a kind: the first version marked {@link STORAGE_VERSION_MARKER}, or
 * else the first one the kind had (`marked` false), the hub a conversion would convert through.
 */
export async function storageVersionOf(
  tree: VirtualTree,
  sameKind: readonly ProjectResource[],
): Promise<{ hub: string; marked: boolean }> {
  const [first] = await storageVersionMarks(tree, sameKind);
  return first !== undefined
    ? { hub: first.resource.version, marked: true }
    : { hub: sameKind[0]!.version, marked: false };
}
