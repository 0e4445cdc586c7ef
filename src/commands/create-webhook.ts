import type { Command } from 'commander';
import { CREATE_WEBHOOK_FLAGS } from '../create-webhook/create-webhook-flags.js';
import type { CreateWebhookOptions } from '../create-webhook/index.js';
import { createCommandGroup, type MakeContext } from './command-module.js';
import { addFlags } from './flag-options.js';

/** `kop create webhook`: a defaulting, validating and/or conversion webhook for a kind/version. */
export function register(program: Command, makeContext: MakeContext): void {
  const create = createCommandGroup(program);
  const webhook = create
    .command('webhook')
    .description('add admission or conversion webhooks to a kind/version: code, test, wiring, config, PROJECT entry');
  addFlags(webhook, CREATE_WEBHOOK_FLAGS)
    // The flags' fields are CreateWebhookOptions', and an absent flag means "ask or default".
    .action(async (flags: CreateWebhookOptions) => {
      const { runCreateWebhook } = await import('../create-webhook/index.js');
      await runCreateWebhook(flags, makeContext());
    });
}
