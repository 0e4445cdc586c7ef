import type { Command } from 'commander';
import type { CreateApiWithPluginsOptions } from '../plugins/run-create-api-plugins.js';
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
    .option(
      '--controller-name <name>',
      'name of the reconciler (DNS-1035 label), for several reconcilers of one kind: src/controllers/[<group>/]<name>.controller.ts (the group folder in multigroup projects), its name in logs and metrics',
    )
    .option(
      '--external-api-path <path>',
      'a kind another project owns: where its type and descriptor come from (a folder under api/, or a module of an npm package)',
    )
    .option(
      '--external-api-domain <domain>',
      "with --external-api-path: the domain that completes --group to the kind's API group (e.g. io for cert-manager.io)",
    )
    .option(
      '--external-api-module <module>',
      'where the external kind comes from: an npm package spec (name@range, added to package.json) or a CRD file or folder (imported as kop import crd does)',
    )
    .option('--force', 'overwrite the files of an existing kind/version')
    .option(
      '--ssa',
      'server-side apply: kop generate writes typed apply configurations (<kind>.apply.ts) and the reconciler applies with a field manager (needs --resource)',
    )
    .option(
      '--plugins <names>',
      'plugins to scaffold with, comma-separated: deploy-image/v1-alpha (or deploy-image.go.kubebuilder.io/v1-alpha)',
      collect,
    )
    .option('--image <ref>', "deploy-image: the image the kind's controller runs as a Deployment")
    .option(
      '--image-container-command <a,b,...>',
      "deploy-image: the container's command and arguments, comma-separated",
    )
    .option('--image-container-port <port>', 'deploy-image: the port the container listens on')
    .option('--run-as-user <uid>', 'deploy-image: the (non-root) user id the container runs as')
    // The flags' names are CreateApiOptions' fields, and an absent flag means "ask or default".
    .action(async (flags: CreateApiWithPluginsOptions) => {
      const { runCreateApiWithPlugins } = await import('../plugins/run-create-api-plugins.js');
      await runCreateApiWithPlugins(flags, makeContext());
    });
}

/** Repeated `--plugins` flags add up. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
