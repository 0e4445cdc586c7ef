import type { Command } from 'commander';
import type { CreateApiOptions } from '../create-api/run-create-api.js';
import { createCommandGroup, type MakeContext } from './command-module.js';

/**
 * `kop create api`: adds a kind (or a version of one) with its types, sample and reconciler.
 * `create` is a command group so that later `kop create <thing>` commands join it.
 */
export function register(program: Command, makeContext: MakeContext): void {
  const create = createCommandGroup(program);
  create
    .command('api')
    .description('add an API kind (or a new version of one): types, sample, reconciler, PROJECT entry')
    .option('--group <group>', 'API group without the domain, e.g. cache (gives cache.<domain>)')
    .option('--version <version>', 'API version: v1, v1alpha1, v2beta3, ...')
    .option('--kind <Kind>', 'kind, UpperCamelCase, e.g. Memcached')
    .option('--plural <plural>', 'lower-case plural used in URLs (default: English plural of the kind)')
    .option('--namespaced', 'objects live in namespaces (default)')
    .option('--no-namespaced', 'objects are cluster-scoped')
    .option('--resource', 'scaffold the API types and sample (asked on a terminal; default yes)')
    .option('--no-resource', 'do not scaffold the API types')
    .option('--controller', 'scaffold a reconciler and register it in src/main.ts (asked on a terminal; default yes)')
    .option('--no-controller', 'do not scaffold a reconciler')
    .option('--force', 'overwrite the files of an existing kind/version')
    .option('--ssa', 'server-side apply: kop generate writes typed apply configurations (<kind>.apply.ts) and the reconciler applies with a field manager (needs --resource)')
    // The flags' names are CreateApiOptions' fields, and an absent flag means "ask or default".
    .action(async (flags: CreateApiOptions) => {
      const { runCreateApi } = await import('../create-api/run-create-api.js');
      await runCreateApi(flags, makeContext());
    });
}
