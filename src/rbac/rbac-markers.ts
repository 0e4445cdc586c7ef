/**
 * `+kubebuilder:rbac:groups=...,resources=...,verbs=...` markers in the operator's
 * source (reconcilers, main.ts): the permissions the manager needs. Read from comment
 * lines of src/**\/*.ts without a TypeScript program; they are plain text.
 */
import { collectCommentMarkers, commentMarkersInText, type CommentMarker } from '../markers/index.js';
import {
  MarkerSyntaxError,
  parseEach,
  type SourceLocation,
  type ArgumentSpecs,
  markerRegistry,
  markerUsage,
  type MarkerDefinition,
} from '../markers/index.js';

/** One rbac marker as written. */
export interface RbacMarker {
  groups: string[];
  resources: string[];
  resourceNames: string[];
  verbs: string[];
  urls: string[];
  /** Set: the rule goes into a Role in this namespace instead of the ClusterRole. */
  namespace?: string;
  /** Overrides the role name (default `manager-role`). */
  roleName?: string;
  location: SourceLocation;
}

/** The text every rbac marker line starts with. */
export const RBAC_PREFIX = '+kubebuilder:rbac:';
/** What to scan comments for: also catches misspellings such as `+kubebuilder:rbacs:`, which are errors. */
export const RBAC_SCAN_PREFIX = '+kubebuilder:rbac';

const RBAC_ARGS: ArgumentSpecs = {
  groups: { type: 'stringList', optional: true },
  resources: { type: 'stringList', optional: true },
  resourceNames: { type: 'stringList', optional: true },
  verbs: { type: 'stringList' },
  urls: { type: 'stringList', optional: true },
  namespace: { type: 'string', optional: true },
  roleName: { type: 'string', optional: true },
};

/** The rbac vocabulary: one package-level marker, repeatable, with controller-gen's arguments. */
export const RBAC_MARKER: MarkerDefinition = {
  name: 'kubebuilder:rbac',
  targets: ['package'],
  args: RBAC_ARGS,
  repeatable: true,
};
markerRegistry.register('rbac', [RBAC_MARKER]);

/** Parses one marker line (`+kubebuilder:rbac:...`) with the shared marker registry. */
export function parseRbacMarker(text: string, location: SourceLocation): RbacMarker {
  const fail = (problem: string): never => {
    throw new MarkerSyntaxError(location, `+${RBAC_MARKER.name}`, problem, `write it as ${markerUsage(RBAC_MARKER)}`);
  };
  const { args } = markerRegistry.parse(text, location, 'rbac', `write ${RBAC_PREFIX}...`);
  const list = (key: string): string[] => ((args[key] as string[] | undefined) ?? []).map(String);
  const marker: RbacMarker = {
    groups: list('groups'),
    resources: list('resources'),
    resourceNames: list('resourceNames'),
    verbs: list('verbs'),
    urls: list('urls'),
    location,
  };
  if (args.namespace !== undefined) marker.namespace = String(args.namespace);
  if (args.roleName !== undefined) marker.roleName = String(args.roleName);
  if (marker.verbs.length === 0) fail('missing verbs');
  return marker;
}

/** Parses marker lines found by collectCommentMarkers under RBAC_SCAN_PREFIX; every bad one is reported, not only the first. */
export function parseRbacMarkers(found: readonly CommentMarker[]): RbacMarker[] {
  return parseEach(found, ({ text, location }) => parseRbacMarker(text, location), 'the rbac markers');
}

/** Finds every rbac marker in the comment lines of one file's text. */
export function rbacMarkersInText(text: string, file: string): RbacMarker[] {
  return parseRbacMarkers(commentMarkersInText(text, file, [RBAC_SCAN_PREFIX]).get(RBAC_SCAN_PREFIX)!);
}

/** Every rbac marker in `<root>/src/**\/*.ts`, in file and line order. */
export async function collectRbacMarkers(root: string, sourceDir = 'src'): Promise<RbacMarker[]> {
  return parseRbacMarkers((await collectCommentMarkers(root, [RBAC_SCAN_PREFIX], sourceDir)).get(RBAC_SCAN_PREFIX)!);
}
