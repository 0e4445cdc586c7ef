import type { Command } from 'commander';
import type { AnyFlagSpec } from '../project/command-flags.js';

/**
 * Adds a table's flags to a command as commander options (project/command-flags.ts declares
 * them): a toggle as `--name` and `--no-name`, a list flag repeatable. Commander names each
 * option's field in camelCase, which is the field the table's options type gives it.
 */
export function addFlags(command: Command, table: readonly AnyFlagSpec[]): Command {
  for (const spec of table) {
    const spelled = spec.arg === undefined ? `--${spec.name}` : `--${spec.name} ${spec.arg}`;
    if (spec.type === 'list') command.option(spelled, spec.help, collect);
    else command.option(spelled, spec.help);
    if (spec.type === 'toggle') command.option(`--no-${spec.name}`, spec.noHelp ?? `the opposite of --${spec.name}`);
  }
  return command;
}

/** Repeated list flags add up. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
