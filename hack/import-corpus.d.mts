/** Types of hack/import-corpus.mjs, for the corpus test. */
export interface CorpusEntry {
  /** The file's name in test/import/corpus. */
  file: string;
  /** Its absolute path there. */
  path: string;
  module: string;
  version: string;
  /** Its path inside the module. */
  sourcePath: string;
  licence: string;
  own: boolean;
  rawSchema: boolean;
  /** The first 16 hex digits of its SHA-256. */
  sha256: string;
}

export const CORPUS_DIR: string;
export function corpusEntries(): CorpusEntry[];
export function fetchImportCorpus(options?: { log?: (line: string) => void }): Promise<CorpusEntry[]>;
