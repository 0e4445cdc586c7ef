/**
 * Unknown commands, found before commander parses: commander lets the root's `--help` win over
 * an operand it has not resolved yet, so `kop frobnicate --help` printed the top-level help and
 * exited 0. Checking the command path first makes every unknown command one error, named, with
 * the closest known command suggested.
 */
import type { Command } from 'commander';
import { editDistance } from '../base/index.js';

/** A command path word that names no command where it stands. */
export interface UnknownCommand {
  /** The word as typed. */
  name: string;
  /** The command it was looked up under (the root for `kop frobnicate`). */
  parent: Command;
  /** The closest known command name, when one is close enough. */
  suggestion?: string;
}

/**
 * The first word of the command path in `args` (without node and script) that names no
 * subcommand of the command before it, or undefined when the path is known. Options before and
 * between the words are skipped when they are boolean flags of the commands passed so far (the
 * global ones such as --dry-run); anything else ends the path, since its value cannot be told
 * from a word. `help <command...>` is checked as the path it names.
 */
export function findUnknownCommand(program: Command, args: readonly string[]): UnknownCommand | undefined {
  let command = program;
  const flags = new Set<string>();
  const addFlags = (c: Command) => {
    for (const option of c.options) {
      if (option.required || option.optional) continue;
      if (option.long) flags.add(option.long);
      if (option.short) flags.add(option.short);
    }
  };
  addFlags(program);
  for (const [index, token] of args.entries()) {
    if (token === '--') return undefined;
    if (token.startsWith('-')) {
      if (flags.has(token) || token === '--help' || token === '-h') continue;
      return undefined;
    }
    if (command.commands.length === 0) return undefined;
    if (token === 'help' && command === program) {
      // `kop help create api`: the rest of the line is the path whose help to show.
      const named = args.slice(index + 1).filter((word) => !word.startsWith('-'));
      return findUnknownCommand(program, named);
    }
    const sub = command.commands.find((c) => c.name() === token || c.aliases().includes(token));
    if (sub === undefined) {
      // A command with subcommands of its own and arguments too takes the word as its argument.
      if (command.registeredArguments.length > 0) return undefined;
      return {
        name: token,
        parent: command,
        suggestion: closest(
          token,
          command.commands.filter((c) => !hidden(c)).map((c) => c.name()),
        ),
      };
    }
    command = sub;
    addFlags(command);
  }
  return undefined;
}

/** The message for an unknown command, in commander's words so both paths read the same. */
export function unknownCommandMessage(unknown: UnknownCommand): string {
  const where = unknown.parent.parent ? ` of 'kop ${commandPath(unknown.parent)}'` : '';
  const lines = [`error: unknown command '${unknown.name}'${where}`];
  lines.push(
    unknown.suggestion !== undefined
      ? `(Did you mean ${unknown.suggestion}?)`
      : `(run \`kop ${unknown.parent.parent ? `${commandPath(unknown.parent)} ` : ''}--help\` for the commands)`,
  );
  return lines.join('\n');
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function hidden(command: Command): boolean {
  return (command as unknown as { _hidden?: boolean })._hidden === true;
}

/**
 * The candidate nearest to `word` by edit distance (adjacent swaps count once), when it takes
 * at most one edit per three letters of the candidate (at least one): stricter than commander's
 * 40 % rule, under which `edit` was taken for a misspelt `init`. Ties go to the candidate
 * sharing the longer prefix, then to the first.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number; prefix: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word, name);
    if (distance > Math.max(1, Math.floor(name.length / 3))) continue;
    const prefix = commonPrefix(word, name);
    if (best === undefined || distance < best.distance || (distance === best.distance && prefix > best.prefix))
      best = { name, distance, prefix };
  }
  return best?.name;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
