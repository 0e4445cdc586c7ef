/**
 * The contract between the CLI root and a command module (see index.ts for the rules a
 * command follows). In its own file so that the commands, which need `MakeContext`, do not
 * import the registry that imports them.
 */
import type { Command } from 'commander';
import type { Context } from '../base/index.js';

/** Builds the real context from the global flags; `overrides` replaces fields (tests, or a command that changes cwd). */
export type MakeContext = (overrides?: Partial<Context>) => Context;

/** What every src/commands/<name>.ts exports. */
export interface CommandModule {
  register(program: Command, makeContext: MakeContext): void;
}

/** The `kop create` command group, made by whichever `create <thing>` command registers first. */
export function createCommandGroup(program: Command): Command {
  return (
    program.commands.find((command) => command.name() === 'create') ??
    program.command('create').description('scaffold a new part of the project: `kop create api`, `kop create webhook`')
  );
}
