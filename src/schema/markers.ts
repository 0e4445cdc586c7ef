/**
 * The CRD vocabulary: controller-gen's CRD markers (`+name`, `+name=value`,
 * `+name:key=value,key2=value2`) in API types, registered into the shared marker registry
 * (markers/registry.ts), which parses them the way controller-gen does so Go API types port
 * to TypeScript by changing syntax only. Each definition carries its effect on the schema or
 * the CRD (schema/markers/*.ts); the stages run those effects. Every marker keeps its file and
 * line, for errors.
 */
import { markerRegistry, type Marker, type RegisteredMarker } from '../markers/index.js';
import type { SourceLocation } from '../markers/index.js';
import type { CrdMarkerDefinition } from './markers/definition.js';
import { DOC_MARKERS, PRESENCE_MARKERS, TOPOLOGY_MARKERS } from './markers/fields.js';
import { KIND_MARKERS, PACKAGE_MARKERS } from './markers/kind.js';
import { VALIDATION_MARKERS } from './markers/validation.js';

export { isMarkerLine, type Marker, type MarkerDefinition, type MarkerTarget } from '../markers/index.js';
export type { CrdMarkerDefinition } from './markers/definition.js';
export {
  argumentsUsage,
  guessValue,
  parseArgument,
  parseNamedArguments,
  splitTopLevel,
  type ArgumentSpecs,
  type ArgumentType,
} from '../markers/index.js';

/**
 * The whole vocabulary: controller-gen's CRD markers plus the few kop reads for kinds and
 * packages, each with its effect (markers/*.ts), in the order "did you mean" prefers.
 */
export const MARKER_DEFINITIONS: readonly CrdMarkerDefinition[] = [
  ...PACKAGE_MARKERS,
  ...PRESENCE_MARKERS,
  ...VALIDATION_MARKERS,
  ...DOC_MARKERS,
  ...TOPOLOGY_MARKERS,
  ...KIND_MARKERS,
];

const byName = new Map(
  MARKER_DEFINITIONS.map((definition) => [definition.name, { ...definition, vocabulary: 'crd' as const }]),
);

markerRegistry.register('crd', MARKER_DEFINITIONS);

/** The definition of a CRD marker name, with its effect, if kop knows it. */
export function markerDefinition(name: string): (CrdMarkerDefinition & RegisteredMarker) | undefined {
  return byName.get(name);
}

/** The effect-carrying definition of a parsed CRD marker (every parsed CRD marker has one). */
export function crdMarker(marker: Marker): CrdMarkerDefinition {
  const definition = byName.get(marker.name);
  if (!definition) throw new Error(`+${marker.name} is not a CRD marker`);
  return definition;
}

/**
 * Parses one CRD marker line (the comment text, starting with `+`) with the shared marker
 * registry: the longest known name the text starts with wins, as in controller-gen.
 */
export function parseMarker(text: string, location: SourceLocation): Marker {
  return markerRegistry.parse(text, location, 'crd');
}

/** All markers named `name` in a list. */
export function markersNamed(markers: readonly Marker[], name: string): Marker[] {
  return markers.filter((m) => m.name === name);
}

/** The first marker named `name`, if any. */
export function findMarker(markers: readonly Marker[], name: string): Marker | undefined {
  return markers.find((m) => m.name === name);
}

/** The CRD marker name closest to a misspelt one, when close enough to be the one meant (see MarkerRegistry.nearest). */
export function nearestMarkerName(misspelt: string): string | undefined {
  return markerRegistry.nearest(misspelt, 'crd')?.name;
}
