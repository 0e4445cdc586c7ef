/**
 * Kubebuilder's flag spellings that commander does not read, rewritten before parsing so a
 * Kubebuilder user can port a command line by syntax alone: pflag accepts `--flag=true|false` for
 * every boolean (`--controller=false`, `--resource=true`, `--namespaced=false`), which becomes
 * commander's `--flag` / `--no-flag`; and `--make[=bool]`, which asks Kubebuilder to run `make
 * generate`, is dropped with a note, since kop's generate step is `kop generate`.
 */
import type { Command, Option } from 'commander';
import { UsageError } from '../base/index.js';

/** pflag's spellings of a boolean value (strconv.ParseBool). */
const TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

export interface RespelledArgs {
  args: string[];
  /** Lines to show the user about flags that were accepted and ignored. */
  notes: string[];
}

/** Rewrites `args` (without node and script) for the command they address; other tokens pass unchanged. */
export function respellKubebuilderFlags(program: Command, args: readonly string[]): RespelledArgs {
  const options = [...program.options, ...commandFor(program, args).options];
  const out: string[] = [];
  const notes: string[] = [];
  for (const [index, token] of args.entries()) {
    // After `--`, everything is an operand.
    if (token === '--') {
      out.push(...args.slice(index));
      break;
    }
    const match = /^--([A-Za-z0-9][A-Za-z0-9-]*)(?:=(.*))?$/.exec(token);
    if (!match) {
      out.push(token);
      continue;
    }
    const [, name, value] = match as unknown as [string, string, string | undefined];
    if (name === 'make' && !options.some((o) => o.long === '--make')) {
      if (value !== undefined && !TRUE.has(value) && !FALSE.has(value))
        throw new UsageError(`--make: invalid boolean ${JSON.stringify(value)}; use true or false`);
      notes.push(
        '--make is ignored: kop generates CRDs, RBAC and clients with `kop generate` (npm run generate), which build and test run first',
      );
      continue;
    }
    if (value === undefined) {
      out.push(token);
      continue;
    }
    const positive = options.find((o) => o.long === `--${name}` && isBoolean(o) && !o.negate);
    const negative = options.find((o) => o.long === `--no-${name}` && o.negate);
    if (!positive && !negative) {
      out.push(token);
      continue;
    }
    if (TRUE.has(value)) {
      // Only `--no-x` exists: x is on unless turned off, so `--x=true` says the default.
      if (positive) out.push(`--${name}`);
    } else if (FALSE.has(value)) {
      if (negative) out.push(`--no-${name}`);
      // Only `--x` exists: leaving it out is false.
    } else {
      throw new UsageError(
        `--${name}: invalid boolean ${JSON.stringify(value)}; use --${name}=true or --${name}=false`,
      );
    }
  }
  return { args: out, notes };
}

function isBoolean(option: Option): boolean {
  return !option.required && !option.optional;
}

/** The (sub)command the leading operands of `args` name, as commander will dispatch them. */
function commandFor(program: Command, args: readonly string[]): Command {
  let command = program;
  for (const token of args) {
    if (token.startsWith('-')) continue;
    const sub = command.commands.find((c) => c.name() === token || c.aliases().includes(token));
    if (!sub) break;
    command = sub;
  }
  return command;
}
