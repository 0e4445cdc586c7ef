/**
 * Everything a command needs from the outside world, passed in so tests can call
 * `runX(options, context)` directly with fakes and a temp directory.
 */
export interface Output {
  /** Normal progress and results, to stdout. */
  info(message: string): void;
  /** Something the user should notice but that does not stop the command, to stderr. */
  warn(message: string): void;
  /** Extra detail shown only with --verbose. */
  debug(message: string): void;
  /** Colour helpers that return their input unchanged when colour is off (see cli/output.ts). */
  styles?: Styles;
}

/** Text decorations; identity functions when colour is off. */
export interface Styles {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export interface PromptQuestion {
  /** The flag that answers this question without a prompt, named in errors. */
  flag: string;
  message: string;
  type: 'text' | 'confirm' | 'select';
  initial?: string | boolean;
  choices?: string[];
  validate?: (value: string) => true | string;
}

export interface Prompter {
  /** True when questions can be asked (stdin and stdout are TTYs and --yes was not given). */
  readonly interactive: boolean;
  ask(question: PromptQuestion): Promise<string | boolean>;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a program with an argument array; never through a shell. */
export type Exec = (
  file: string,
  args: readonly string[],
  options?: { cwd?: string; env?: Record<string, string | undefined>; inherit?: boolean },
) => Promise<ExecResult>;

export interface Context {
  cwd: string;
  dryRun: boolean;
  verbose: boolean;
  out: Output;
  prompter: Prompter;
  exec: Exec;
  now: () => Date;
  env: Record<string, string | undefined>;
}
