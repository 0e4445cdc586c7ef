/** Types of run-tutorials.mjs: the runner of the book's tutorials. */
export declare const TESTDATA: string;
export declare const NOT_COMPARED: readonly string[];
export interface StepResult {
  name: string;
  ok: boolean;
  ms: number;
  firstError?: string;
}
export interface TutorialResult {
  tutorial: string;
  /** The page's commands and the reader's edits, in order; stops at the first that fails. */
  steps: StepResult[];
  /** How the project differs from testdata/tutorials/<name>/ (empty when it matches or was updated). */
  differences: string[];
  /** Commands the page does not show, snippet includes of files or regions that do not exist. */
  pageProblems: string[];
  /** npm run build, lint, format:check and npm test. */
  checks: StepResult[];
  updated: boolean;
}
export declare function runTutorials(options?: {
  names?: string[];
  update?: boolean;
  build?: boolean;
  test?: boolean;
  keep?: boolean;
  log?: (line: string) => void;
  /** Added to every command's environment. */
  env?: Record<string, string>;
  /** A kop unpacked under a node_modules, linked as the project's node_modules/kop (else this checkout). */
  kop?: string;
}): Promise<{ dir: string; results: TutorialResult[] }>;
export declare function listFiles(root: string): Promise<string[]>;
export declare function compareTrees(actual: string, expected: string): Promise<string[]>;
export declare function pageProblems(name: string, edit?: (page: string) => string): Promise<string[]>;
export declare function formatTimes(result: TutorialResult): string;
