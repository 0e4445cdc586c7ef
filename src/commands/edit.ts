import type { Command } from 'commander';
import type { EditProjectOptions } from '../edit/index.js';
import type { MakeContext } from './command-module.js';

/**
 * `kop edit`: adds plugins to the project (Kubebuilder's `kubebuilder edit --plugins`) and changes
 * its layout (`--multigroup`, `--namespaced`, as Kubebuilder's `edit` flags).
 */
export function register(program: Command, makeContext: MakeContext): void {
  program
    .command('edit')
    .description(
      'change the project: add plugins (helm: a Helm chart in dist/chart; grafana.kubebuilder.io/v1-alpha: dashboards in grafana/), switch to the multigroup layout or to a namespaced manager; recorded in PROJECT',
    )
    .option(
      '--plugins <names>',
      'plugins to add, comma-separated: helm (or helm/v1-alpha, helm.kubebuilder.io/v1-alpha, helm/v2-alpha, helm.kubebuilder.io/v2-alpha), grafana.kubebuilder.io/v1-alpha (or grafana/v1-alpha)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '--multigroup',
      "move the reconcilers to src/controllers/<group>/ (Kubebuilder's multigroup layout); --multigroup=false moves them back",
    )
    .option('--no-multigroup', 'the single-group layout: reconcilers in src/controllers/')
    .option(
      '--namespaced',
      'watch only WATCH_NAMESPACE with a Role; --namespaced=false: the whole cluster with a ClusterRole',
    )
    .option('--no-namespaced', 'watch the whole cluster with a ClusterRole')
    .option(
      '--max-description-length <bytes>',
      'cap every CRD description at this many bytes for the whole project (0 removes them, none keeps them whole): recorded in PROJECT and followed by kop generate, kop dev and generate --check',
    )
    .option(
      '--allow-dangerous-types',
      'map TypeScript number to "type: number" (floats) in every CRD of the project, like controller-gen\'s crd:allowDangerousTypes: recorded in PROJECT and followed by kop generate, kop dev and generate --check; --allow-dangerous-types=false refuses floats again',
    )
    .option('--no-allow-dangerous-types', 'refuse TypeScript number in the API types again (the default)')
    .option(
      '--generate-embedded-object-meta',
      "give embedded object metadata (a PodTemplateSpec's) name, namespace, labels, annotations and finalizers in every CRD of the project, like controller-gen's crd:generateEmbeddedObjectMeta: recorded in PROJECT and followed by kop generate, kop dev and generate --check; --generate-embedded-object-meta=false turns it off",
    )
    .option(
      '--no-generate-embedded-object-meta',
      'embedded object metadata without properties in the CRDs (the default)',
    )
    .option(
      '--force',
      "go ahead where your edits are in the way of --multigroup/--namespaced (a conflicting file gets kop's version); helm: replace values.yaml instead of merging your changes into it",
    )
    .action(async (flags: EditProjectOptions) => {
      const { runEditProject } = await import('../edit/index.js');
      await runEditProject(
        {
          plugins: flags.plugins,
          multigroup: flags.multigroup,
          namespaced: flags.namespaced,
          force: flags.force,
          maxDescriptionLength: flags.maxDescriptionLength,
          allowDangerousTypes: flags.allowDangerousTypes,
          generateEmbeddedObjectMeta: flags.generateEmbeddedObjectMeta,
        },
        makeContext(),
      );
    });
}
