import type { Command } from 'commander';
import type { CreateWebhookOptions } from '../create-webhook/run-create-webhook.js';
import { createCommandGroup, type MakeContext } from './command-module.js';

/** `kop create webhook`: a defaulting, validating and/or conversion webhook for a kind/version. */
export function register(program: Command, makeContext: MakeContext): void {
  const create = createCommandGroup(program);
  create
    .command('webhook')
    .description('add admission or conversion webhooks to a kind/version: code, test, wiring, config, PROJECT entry')
    .option(
      '--group <group>',
      'API group of the kind, without the domain (e.g. cache; core or apps for a built-in kind)',
    )
    .option('--version <version>', 'API version the webhooks are for; with --conversion, the hub (storage) version')
    .option('--kind <Kind>', 'kind, as given to `kop create api`')
    .option('--plural <plural>', 'as given to `kop create api` (checked against PROJECT; Kubebuilder passes it again)')
    .option('--defaulting', 'a mutating webhook that sets defaults (asked on a terminal)')
    .option('--programmatic-validation', 'a validating webhook with checks in code (asked on a terminal)')
    .option('--conversion', 'a conversion webhook: --version is the hub, --spoke the versions converting to it')
    .option(
      '--spoke <versions>',
      'spoke versions for --conversion, comma-separated or repeated',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--defaulting-path <path>', "the defaulting webhook's URL path instead of /mutate-<group>-<version>-<kind>")
    .option(
      '--validation-path <path>',
      "the validating webhook's URL path instead of /validate-<group>-<version>-<kind>",
    )
    .option(
      '--external-api-domain <domain>',
      'for a kind imported with `kop import crd`: the domain of its group (--group cert-manager --external-api-domain io)',
    )
    .option(
      '--external-api-path <path>',
      'for an external kind: accepted as Kubebuilder spells it (a Go package path too); the types are the ones `kop import crd` wrote',
    )
    .option(
      '--external-api-module <module>',
      "the external kind's CRD file or folder, imported as `kop import crd` does unless an earlier command brought it",
    )
    .option('--force', 'scaffold webhooks the kind already has again, overwriting their files')
    // The flags' names are CreateWebhookOptions' fields, and an absent flag means "ask or default".
    .action(async (flags: CreateWebhookOptions) => {
      const { runCreateWebhook } = await import('../create-webhook/run-create-webhook.js');
      await runCreateWebhook(flags, makeContext());
    });
}
