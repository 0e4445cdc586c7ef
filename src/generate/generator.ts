/**
 * The contract between `kop generate` and its generators (manifests, client, ...).
 * Every generator writes into one shared VirtualTree, so `kop generate` with several
 * generators writes all files or none, and `--check` / `--dry-run` see them all.
 */
import type { Context } from '../base/index.js';
import type { ProjectFile } from '../project/index.js';
import type { VirtualTree } from '../scaffold/index.js';

/** Options every generator receives (each reads the ones it understands). */
export interface GenerateOptions {
  /** Compare with the files on disk and fail naming stale ones, instead of writing. */
  check: boolean;
  /** Cap on CRD descriptions, in bytes (manifests). */
  maxDescriptionLength?: number;
  /**
   * Map TypeScript `number` to `type: number` (manifests; controller-gen's crd:allowDangerousTypes).
   * Undefined: as PROJECT's `crd.allowDangerousTypes` says (withProjectSettings).
   */
  allowDangerousTypes?: boolean;
  /**
   * Embedded ObjectMeta gets its properties in CRDs (manifests; controller-gen's crd:generateEmbeddedObjectMeta).
   * Undefined: as PROJECT's `crd.generateEmbeddedObjectMeta` says (withProjectSettings).
   */
  generateEmbeddedObjectMeta?: boolean;
}

export interface GeneratorInput {
  tree: VirtualTree;
  project: ProjectFile;
  context: Context;
  options: GenerateOptions;
}

/** What a generator module exports. */
export interface Generator {
  generate(input: GeneratorInput): Promise<void>;
}

/** One entry of `kop generate`'s list: a name (the sub-command) and a lazy loader. */
export interface GeneratorEntry {
  name: string;
  description: string;
  load(): Promise<Generator>;
}
