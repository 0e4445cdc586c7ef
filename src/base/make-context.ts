import type { Readable, Writable } from 'node:stream';
import { UsageError, KopError } from './errors.js';
import type { Context, Exec, Output, PromptQuestion, Prompter } from './context.js';

/**
 * A prompter backed by `@clack/prompts` (maintained, small, and its prompts take their streams
 * and an abort signal; `prompts`, the design card's choice, has had no release for years).
 * Without a TTY, or with --yes, it never asks: questions with an initial value take it, and a
 * question without one is a UsageError naming the flag that answers it. `streams` replaces the
 * process's stdin and stdout (tests drive it through them).
 */
export function createPrompter(options: {
  interactive: boolean;
  streams?: { input: Readable; output: Writable };
}): Prompter {
  return {
    interactive: options.interactive,
    async ask(question: PromptQuestion): Promise<string | boolean> {
      if (!options.interactive) {
        if (question.initial !== undefined) return question.initial;
        throw new UsageError(
          `missing ${question.flag}: ${question.message}`,
          `pass ${question.flag} <value> (there is no terminal to ask on)`,
        );
      }
      const clack = await import('@clack/prompts');
      const common = { message: question.message, ...(options.streams ?? {}) };
      let answer: string | boolean | symbol;
      if (question.type === 'confirm') {
        answer = await clack.confirm({ ...common, initialValue: question.initial === true });
      } else if (question.type === 'select') {
        const choices = question.choices ?? [];
        const initial =
          typeof question.initial === 'string' && choices.includes(question.initial) ? question.initial : choices[0];
        answer = await clack.select({
          ...common,
          options: choices.map((choice) => ({ value: choice, label: choice })),
          initialValue: initial,
        });
      } else {
        const check = question.validate;
        answer = await clack.text({
          ...common,
          // An empty answer takes the default, which is shown as the placeholder.
          ...(typeof question.initial === 'string'
            ? { placeholder: question.initial, defaultValue: question.initial }
            : {}),
          validate: check
            ? (value) => {
                const typed = value ?? '';
                // An empty answer with a default is the default, which is checked where it is used.
                if (typed === '' && typeof question.initial === 'string') return undefined;
                const result = check(typed);
                return result === true ? undefined : result;
              }
            : undefined,
        });
      }
      if (clack.isCancel(answer) || typeof answer === 'symbol') throw new KopError('cancelled');
      return answer;
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
