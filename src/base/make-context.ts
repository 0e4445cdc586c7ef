import { UsageError, KopError } from './errors.js';
import type { Context, Exec, Output, PromptQuestion, Prompter } from './context.js';

/**
 * A prompter backed by `prompts`. Without a TTY, or with --yes, it never asks:
 * questions with an initial value take it, and a question without one is a
 * UsageError naming the flag that answers it.
 */
export function createPrompter(options: { interactive: boolean }): Prompter {
  return {
    interactive: options.interactive,
    async ask(question: PromptQuestion): Promise<string | boolean> {
      if (!options.interactive) {
        if (question.initial !== undefined) return question.initial;
        throw new UsageError(`missing ${question.flag}: ${question.message}`, `pass ${question.flag} <value> (there is no terminal to ask on)`);
      }
      const { default: prompts } = await import('prompts');
      let cancelled = false;
      const type = question.type === 'select' ? 'select' : question.type;
      const choices = question.choices?.map((choice) => ({ title: choice, value: choice }));
      const answer = await prompts(
        {
          name: 'value',
          type,
          message: question.message,
          initial:
            question.type === 'select' && typeof question.initial === 'string'
              ? Math.max(0, question.choices?.indexOf(question.initial) ?? 0)
              : question.initial,
          choices,
          validate: question.validate ? (value: unknown) => question.validate!(String(value)) : undefined,
        },
        { onCancel: () => (cancelled = true) },
      );
      if (cancelled || answer.value === undefined) throw new KopError('cancelled');
      return answer.value as string | boolean;
    },
  };
}

/** Runs programs through execa with argument arrays (never a shell); a missing program is exit code 127. */
export const execaExec: Exec = async (file, args, options = {}) => {
  const { execa } = await import('execa');
  const result = await execa(file, [...args], {
    cwd: options.cwd,
    env: options.env,
    reject: false,
    stdio: options.inherit ? 'inherit' : 'pipe',
  });
  const missing = (result as { code?: string }).code === 'ENOENT';
  return {
    exitCode: result.exitCode ?? (missing ? 127 : 1),
    stdout: typeof result.stdout === 'string' ? result.stdout : '',
    stderr: missing ? `${file}: command not found` : typeof result.stderr === 'string' ? result.stderr : '',
  };
};

/** The clock; SOURCE_DATE_EPOCH (seconds) pins it for reproducible output, as in reproducible builds. */
export function clockFromEnv(env: Record<string, string | undefined>): () => Date {
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && /^\d+$/.test(epoch)) {
    const fixed = new Date(Number(epoch) * 1000);
    return () => new Date(fixed);
  }
  return () => new Date();
}

/** Inputs for the real context, resolved from global flags and the process. */
export interface RealContextOptions {
  cwd: string;
  dryRun: boolean;
  verbose: boolean;
  /** True when questions may be asked: stdin and stdout are TTYs and --yes was not given. */
  interactive: boolean;
  out: Output;
  env: Record<string, string | undefined>;
}

/** The context commands run with in the CLI. */
export function createContext(options: RealContextOptions): Context {
  return {
    cwd: options.cwd,
    dryRun: options.dryRun,
    verbose: options.verbose,
    out: options.out,
    prompter: createPrompter({ interactive: options.interactive }),
    exec: execaExec,
    now: clockFromEnv(options.env),
    env: options.env,
  };
}
