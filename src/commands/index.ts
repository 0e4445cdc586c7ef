/**
 * The command registry. Every command is a module in src/commands/<name>.ts that
 * exports `register(program, makeContext)`; add yours with one import line and one
 * entry in `commands` below.
 *
 * Contract for a command module:
 * - `register(program: Command, makeContext: MakeContext): void` adds one subcommand
 *   (`program.command('name')...action(...)`), with its own flags only. Global flags
 *   (--dry-run, --verbose, --no-color, -y/--yes) are on the root program and already
 *   folded into the context; do not redefine them.
 * - Inside the action, call `makeContext()` (or `makeContext({ cwd })` to override
 *   fields) to get the real `Context` (src/base/context.ts), parse flags into an options
 *   object, then `const { runX } = await import('../x/run-x.js'); await runX(options, context)`.
 * - Top-level imports stay light (commander types, ../base/errors.js): `kop --help`
 *   loads every command module, so ts-morph, handlebars, execa or your implementation
 *   must be dynamic imports inside the action.
 * - Errors: throw `UsageError` (exit 2) for bad flags/arguments, `KopError` (exit 1,
 *   with an optional hint) for everything the user can act on; the root prints one
 *   line and sets the exit code. Never call process.exit.
 * - Generating commands write through a `VirtualTree` and finish with
 *   `flushTree(tree, context, { tasks })` from src/scaffold/flush-tree.ts.
 */
import type { CommandModule } from './command-module.js';
import * as alpha from './alpha.js';
import * as buildInstaller from './build-installer.js';
import * as createApi from './create-api.js';
import * as createWebhook from './create-webhook.js';
import * as deploy from './deploy.js';
import * as edit from './edit.js';
import * as dev from './dev.js';
import * as generate from './generate.js';
import * as importCommand from './import.js';
import * as init from './init.js';
import * as install from './install.js';
import * as migrate from './migrate.js';
import * as setupEnvtest from './setup-envtest.js';
import * as undeploy from './undeploy.js';
import * as uninstall from './uninstall.js';
import * as updatePack from './update-pack.js';
import * as version from './version.js';

/** The context factory every command module's `register` receives (src/cli/main.ts makes it). */
export type { MakeContext } from './command-module.js';

/** Every command, in the order `kop --help` lists them. */
export const commands: readonly CommandModule[] = [
  init,
  createApi,
  createWebhook,
  generate,
  importCommand,
  dev,
  install,
  uninstall,
  deploy,
  undeploy,
  buildInstaller,
  migrate,
  edit,
  updatePack,
  alpha,
  version,
  setupEnvtest,
];
