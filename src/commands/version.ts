import type { Command } from 'commander';
import type { MakeContext } from './command-module.js';
import { kopVersion } from '../base/index.js';

/** `kop version`: kop's version and the Node version running it. */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('version')
    .description("print kop's version and the Node.js version")
    .action(() => {
      makeContext().out.info(`kop ${kopVersion()} (node ${process.version})`);
    });
}
