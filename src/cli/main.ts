import type { Command } from 'commander';
import { type MakeContext, commands } from '../commands/index.js';
import { type Context, KopError, createContext, kopVersion } from '../base/index.js';
import { loadCommander } from './load-commander.js';
import { respellKubebuilderFlags } from './pflag-spelling.js';
import { findUnknownCommand, unknownCommandMessage } from './unknown-command.js';
import { createOutput, createStyles, shouldUseColor, type OutputStreams } from './output.js';

const { Command: CommandClass, CommanderError } = loadCommander();

/** The process around the CLI; tests pass string sinks, a temp cwd and their own env. */
export interface MainIo extends OutputStreams {
  stdin: { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
}

/** Global flags, present on the root program and folded into every command's context. */
export interface GlobalFlags {
  dryRun: boolean;
  verbose: boolean;
  color: boolean;
  yes: boolean;
}

/** Builds the root program with every registered command. */
export function createProgram(io: MainIo): Command {
  const program = new CommandClass('kop');
  program
    .description('Kubebuilder for TypeScript: scaffold, generate and run Kubernetes operators written in TypeScript')
    // Only -V here: `--version` is also a flag of `kop create api`, and commander lets a root
    // flag swallow it anywhere on the line. main() maps a leading `kop --version` to -V.
    .version(kopVersion(), '-V', "print kop's version (also --version, before any command)")
    .option('--dry-run', 'print what would change and write nothing')
    .option('--verbose', 'print more detail, and stack traces on errors')
    .option('--no-color', 'never colour the output (NO_COLOR works too)')
    .option('-y, --yes', 'never prompt: take defaults, fail on a missing required value')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
      outputError: (text, write) => write(createStyles(shouldUseColor(io.stderr, io.env)).red(text)),
    });

  const makeContext: MakeContext = (overrides: Partial<Context> = {}) => {
    const flags = globalFlags(program);
    const interactive =
      !flags.yes && io.stdin.isTTY === true && io.stdout.isTTY === true && io.env.CI !== 'true' && io.env.CI !== '1';
    const context = createContext({
      cwd: io.cwd,
      dryRun: flags.dryRun,
      verbose: flags.verbose,
      interactive,
      env: io.env,
      out: createOutput(io, { verbose: flags.verbose, color: shouldUseColor(io.stdout, io.env, flags.color) }),
    });
    return { ...context, ...overrides };
  };

  for (const command of commands) command.register(program, makeContext);
  // Subcommands inherit exitOverride/output only when set before they are added, so re-apply.
  for (const sub of program.commands) {
    sub.exitOverride().configureOutput(program.configureOutput()).showSuggestionAfterError(true);
  }
  return program;
}

/**
 * Runs the CLI on `argv` in process.argv form (`[node, script, ...args]`) and returns
 * the exit code: 0 ok, 1 error (an unknown command or flag too), 2 usage. Errors are one line (plus a hint); the stack
 * only with --verbose or DEBUG=kop.
 */
export async function main(argv: string[], io: Partial<MainIo> = {}): Promise<number> {
  const fullIo: MainIo = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    stdin: io.stdin ?? process.stdin,
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
  };
  const program = createProgram(fullIo);
  if (argv[2] === '--version') argv = [...argv.slice(0, 2), '-V', ...argv.slice(3)];
  try {
    const respelled = respellKubebuilderFlags(program, argv.slice(2));
    for (const note of respelled.notes) fullIo.stderr.write(`note: ${note}\n`);
    // Before commander, which would let a --help on the line print the top-level help instead.
    const unknown = findUnknownCommand(program, respelled.args);
    if (unknown !== undefined) {
      fullIo.stderr.write(
        createStyles(shouldUseColor(fullIo.stderr, fullIo.env, !argv.includes('--no-color'))).red(
          unknownCommandMessage(unknown),
        ) + '\n',
      );
      return 1;
    }
    await program.parseAsync([...argv.slice(0, 2), ...respelled.args], { from: 'node' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed help, the version or the usage error. A word kop does not know
      // (a command or a flag) is an error of the command line as typed: 1, as Kubebuilder (cobra) exits.
      if (error.code === 'commander.unknownCommand' || error.code === 'commander.unknownOption') return 1;
      return error.exitCode === 0 ? 0 : 2;
    }
    const verbose = globalFlags(program).verbose || argv.includes('--verbose') || debugEnabled(fullIo.env);
    const styles = createStyles(shouldUseColor(fullIo.stderr, fullIo.env, !argv.includes('--no-color')));
    fullIo.stderr.write(formatError(error, verbose, styles.red('error:')) + '\n');
    return error instanceof KopError ? error.exitCode : 1;
  }
}

/**
 * What the user sees of an error: `error: message` (all of a kop error's lines: a list of places
 * to fix is the message), then `hint: ...` when known; the stack too when verbose. An unexpected
 * error shows its first line only, unless verbose.
 */
export function formatError(error: unknown, verbose: boolean, label = 'error:'): string {
  if (!(error instanceof Error)) return `${label} ${String(error)}`;
  const message = verbose || error instanceof KopError ? error.message : (error.message.split('\n')[0] ?? '');
  const lines = [`${label} ${message}`];
  if (error instanceof KopError && error.hint) lines.push(`hint: ${error.hint}`);
  if (verbose && error.stack) lines.push(error.stack);
  return lines.join('\n');
}

function debugEnabled(env: Record<string, string | undefined>): boolean {
  return (env.DEBUG ?? '').split(/[\s,]+/).some((name) => name === 'kop' || name === 'kop:*' || name === '*');
}

/** The root program's global flags with their defaults filled in. */
function globalFlags(program: Command): GlobalFlags {
  const opts = program.opts<Partial<GlobalFlags>>();
  return {
    dryRun: opts.dryRun ?? false,
    verbose: opts.verbose ?? false,
    color: opts.color ?? true,
    yes: opts.yes ?? false,
  };
}
