import type { Command } from 'commander';
import type { MakeContext } from './command-module.js';
import { generators } from './generate.js';

interface DevFlags {
  kubeconfig?: string;
  installCrds?: boolean;
  samples?: boolean;
  webhookHost?: string;
  trace?: boolean;
}

/** `kop dev`: the inner loop on an embedded control plane (or an existing cluster). */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('dev')
    .description('run the operator on a local control plane, rebuilding and restarting it as you edit api/ and src/')
    .argument('[manager-flags...]', 'flags for the manager, after -- (e.g. -- --leader-elect)')
    .option('--samples', 'apply config/samples once the CRDs are installed')
    .option('--kubeconfig <file>', 'use the cluster of this kubeconfig instead of starting a control plane')
    .option('--install-crds', 'with --kubeconfig: install and reinstall the CRDs without asking')
    .option('--no-install-crds', 'with --kubeconfig: never install the CRDs')
    .option(
      '--webhook-host <address>',
      'with --kubeconfig: install the webhooks, pointed at this address of this machine (one the cluster reaches)',
    )
    .option(
      '--trace',
      "print each reconcile as a waterfall of its spans (queue wait, cache reads, API calls), from the manager's OpenTelemetry traces",
    )
    .addHelpText(
      'after',
      "\nThe control plane is kop/testing's (`npx kop setup-envtest` once); its kubeconfig is written to .kop/dev/kubeconfig.\n" +
        'Examples:\n  kop dev --samples\n  kop dev --samples --trace\n  kop dev --kubeconfig ~/.kube/config --install-crds\n  kop dev -- --leader-elect\n',
    )
    .action(async (managerFlags: string[], flags: DevFlags, command: Command) => {
      const context = makeContext();
      const { runDev } = await import('../dev/index.js');
      const { stopOnSignals } = await import('../dev/index.js');
      // commander sets installCrds to true by default because of --no-install-crds: only an explicit flag counts.
      const installCrds = command.getOptionValueSource('installCrds') === 'cli' ? flags.installCrds : undefined;
      const stop = stopOnSignals((line) => context.out.info(line));
      try {
        await runDev(
          {
            kubeconfig: flags.kubeconfig,
            installCrds,
            samples: flags.samples ?? false,
            webhookHost: flags.webhookHost,
            trace: flags.trace ?? false,
            managerArgs: managerFlags,
            generators,
            signal: stop.signal,
          },
          context,
        );
      } finally {
        stop.dispose();
      }
    });
}
