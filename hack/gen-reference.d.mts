/** Types of hack/gen-reference.mjs, for test/repository/docs-reference.test.ts. */
import type { Command } from 'commander';
import type { MarkerDefinition, MarkerVocabulary } from '../src/markers/registry.js';

export function renderCliReference(program: Command): string;
export function renderMarkersReference(
  definitions: readonly (MarkerDefinition & { vocabulary: MarkerVocabulary })[],
  usage: (definition: MarkerDefinition) => string,
): string;
export function renderRuntimeReference(reports: readonly { file: string; text: string }[]): string;
export function readApiReports(root?: string): { file: string; text: string }[];
export const REFERENCE_PAGES: { cli: string; markers: string; runtime: string };
