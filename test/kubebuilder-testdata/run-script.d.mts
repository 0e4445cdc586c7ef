/** Types of run-script.mjs: the runner of Kubebuilder's testdata scripts. */
import type { ProjectName } from './scripts.mjs';
export declare const KOP_ROOT: string;
export declare const KOP_BIN: string;
export declare const INIT_EXTRA_FLAGS: readonly string[];
export interface CommandResult {
  argv: string[];
  ok: boolean;
  exitCode: number | null;
  ms: number;
  firstError?: string;
  /** It failed after an earlier command for the same group and kind had failed. */
  afterFailure?: true;
}
export interface StepResult {
  name: string;
  ok: boolean;
  ms: number;
  firstError?: string;
}
export interface ScriptResult {
  projectName: ProjectName;
  /** The project folder (deleted unless `keep`). */
  dir: string;
  commands: CommandResult[];
  steps: StepResult[];
  /** Flags left out of a failed init so the rest of the script had a project to run in. */
  bootstrap: string[];
  /** Time spent in kop commands (not npm). */
  kopMs: number;
  projectDifferences: string[];
}
export interface RunOptions {
  keep?: boolean;
  test?: boolean;
  build?: boolean;
  compare?: boolean;
  log?: (line: string) => void;
  /** Added to every command's environment. */
  env?: Record<string, string>;
  /** Runs a build script that is `tsc -p <tsconfig>` in place of npm (test/helpers/typecheck.ts's tsc). */
  tsc?: (args: string[], cwd: string) => Promise<{ exitCode: number; stdout: string }>;
}
export declare function loadExpectedProject(projectName: ProjectName): Promise<Record<string, unknown>>;
export declare function firstErrorLine(stderr: string, stdout?: string): string;
export declare function kopArgs(argv: readonly string[]): string[];
export declare function runKubebuilderScript(projectName: ProjectName, options?: RunOptions): Promise<ScriptResult>;
export declare function commandScore(result: ScriptResult): string;
export declare function formatTable(results: readonly ScriptResult[]): string;
export declare function failureGroupKey(message: string | undefined): string;
export declare function groupFailures(results: readonly ScriptResult[]): Array<{ message: string; where: string[] }>;
/**
 * Links kop's own node_modules and kop itself into a project's node_modules, as initLinkedProject does;
 * with `unpackKop`, kop is the project's `.kop/` tarball unpacked into node_modules/kop, as npm installs it;
 * with `kop`, a link to that folder (a kop unpacked under a node_modules).
 */
export declare function linkKopDependencies(
  project: string,
  options?: { unpackKop?: boolean; kop?: string },
): Promise<void>;
