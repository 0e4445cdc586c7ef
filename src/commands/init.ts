import type { Command } from 'commander';
import type { InitOptions } from '../init/index.js';
import type { MakeContext } from './command-module.js';

/** `kop init`: scaffolds a new operator project in the current folder. */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('init')
    .description('scaffold a new TypeScript operator project in the current folder')
    .option('--domain <domain>', 'domain of every API group, e.g. example.com (default "my.domain")')
    .option('--project-name <name>', 'project name, a DNS-1123 label (default: the folder name)')
    .option('--owner <owner>', 'copyright owner named in the license headers')
    .option('--license <license>', 'license of the generated project: apache2 or none (default "apache2")')
    .option('--namespaced', 'watch only the namespace in WATCH_NAMESPACE and use namespaced Roles')
    .option(
      '--multigroup',
      "Kubebuilder's multigroup layout: reconcilers by API group, src/controllers/<group>/ (PROJECT multigroup: true)",
    )
    .option('--no-multigroup', 'the single-group layout (the default): reconcilers in src/controllers/')
    .option(
      '--plugins <names>',
      "the project layout, as Kubebuilder names it: go/v4 or go.kubebuilder.io/v4 (or kop.dev/typescript/v1) all mean kop's TypeScript layout; other plugins: kop edit --plugins / kop create api --plugins",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '--kop-source <spec>',
      'npm dependency spec for kop: a registry range, git URL or path relative to the project (default: a range when this kop came from a registry, else this kop packed into .kop/kop-<version>.tgz)',
    )
    .option('--skip-install', 'do not run npm install after writing the files')
    .option('--repo <module>', "Kubebuilder's Go module path: accepted and ignored (a kop project is an npm package)")
    .option('--force', 'write even when the folder already holds a project')
    // The flags' camel-cased names are InitOptions' fields, and an absent flag means the default.
    .action(async (flags: InitOptions) => {
      const { runInit } = await import('../init/index.js');
      await runInit(flags, makeContext());
    });
}
