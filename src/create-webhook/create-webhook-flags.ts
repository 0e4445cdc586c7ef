/**
 * `kop create webhook`'s flags, each declared once: spelling and help, field in
 * {@link CreateWebhookFlags}, what PROJECT records for it and its replay (project/command-flags.ts).
 * Light: `kop --help` loads it.
 */
import { flag, type OptionsOf } from '../project/command-flags.js';
import type { ProjectResource, ProjectWebhooks } from '../project/index.js';
import { originOf } from '../project/resource-origin.js';

/** Sets (or, for undefined, removes) one key of the kind's `webhooks:` entry. */
function setWebhooks<K extends keyof ProjectWebhooks>(
  resource: ProjectResource,
  key: K,
  value: ProjectWebhooks[K] | undefined,
): void {
  const webhooks = (resource.webhooks ??= {});
  if (value === undefined) delete webhooks[key];
  else webhooks[key] = value;
}

export const CREATE_WEBHOOK_FLAGS = [
  flag({
    name: 'group',
    type: 'value',
    arg: '<group>',
    help: 'API group of the kind, without the domain (e.g. cache; core or apps for a built-in kind)',
    recorded: ({ resource }) => resource.group,
  }),
  flag({
    name: 'version',
    type: 'value',
    arg: '<version>',
    help: 'API version the webhooks are for; with --conversion, the hub (storage) version',
    recorded: ({ resource }) => resource.version,
  }),
  flag({
    name: 'kind',
    type: 'value',
    arg: '<Kind>',
    help: 'kind, as given to `kop create api`',
    recorded: ({ resource }) => resource.kind,
  }),
  // Checked against PROJECT, which records the plural with the kind: the replay leaves it out.
  flag({
    name: 'plural',
    type: 'value',
    arg: '<plural>',
    help: 'as given to `kop create api` (checked against PROJECT; Kubebuilder passes it again)',
    unrecorded: 'create api records the plural with the kind',
  }),
  flag({
    name: 'defaulting',
    type: 'switch',
    help: 'a mutating webhook that sets defaults (asked on a terminal)',
    recorded: ({ resource }) => resource.webhooks?.defaulting === true,
    record: (resource, on) => setWebhooks(resource, 'defaulting', on === true ? true : undefined),
  }),
  flag({
    name: 'programmatic-validation',
    type: 'switch',
    help: 'a validating webhook with checks in code (asked on a terminal)',
    recorded: ({ resource }) => resource.webhooks?.validation === true,
    record: (resource, on) => setWebhooks(resource, 'validation', on === true ? true : undefined),
  }),
  flag({
    name: 'conversion',
    type: 'switch',
    help: 'a conversion webhook: --version is the hub, --spoke the versions converting to it',
    recorded: ({ resource }) => resource.webhooks?.conversion === true,
    record: (resource, on) => setWebhooks(resource, 'conversion', on === true ? true : undefined),
  }),
  flag({
    name: 'spoke',
    type: 'list',
    arg: '<versions>',
    help: 'spoke versions for --conversion, comma-separated or repeated',
    recorded: ({ resource }) => (resource.webhooks?.conversion ? [...(resource.webhooks.spoke ?? [])] : undefined),
    record: (resource, spokes) =>
      setWebhooks(resource, 'spoke', spokes !== undefined && spokes.length > 0 ? spokes : undefined),
  }),
  flag({
    name: 'defaulting-path',
    type: 'value',
    arg: '<path>',
    help: "the defaulting webhook's URL path instead of /mutate-<group>-<version>-<kind>",
    recorded: ({ resource }) => resource.webhooks?.defaultingPath,
    record: (resource, path) => setWebhooks(resource, 'defaultingPath', path),
  }),
  flag({
    name: 'validation-path',
    type: 'value',
    arg: '<path>',
    help: "the validating webhook's URL path instead of /validate-<group>-<version>-<kind>",
    recorded: ({ resource }) => resource.webhooks?.validationPath,
    record: (resource, path) => setWebhooks(resource, 'validationPath', path),
  }),
  flag({
    name: 'external-api-domain',
    type: 'value',
    arg: '<domain>',
    help: 'for a kind imported with `kop import crd`: the domain of its group (--group cert-manager --external-api-domain io)',
    // An external kind is looked up by its full group, so a kind of the same name here is never taken for it.
    recorded: ({ resource }) => {
      const origin = originOf(resource).type;
      return (origin === 'imported' || origin === 'package') && resource.domain !== '' ? resource.domain : undefined;
    },
  }),
  flag({
    name: 'external-api-path',
    type: 'value',
    arg: '<path>',
    help: 'for an external kind: accepted as Kubebuilder spells it (a Go package path too); the types are the ones `kop import crd` wrote',
    unrecorded: 'the kind is found by its group; its types are where `kop import crd` recorded them',
  }),
  flag({
    name: 'external-api-module',
    type: 'value',
    arg: '<module>',
    help: "the external kind's CRD file or folder, imported as `kop import crd` does unless an earlier command brought it",
    unrecorded: "the import records it as the kind's `module`; the replay imports the kind before its webhooks",
  }),
  flag({
    name: 'force',
    type: 'switch',
    help: 'scaffold webhooks the kind already has again, overwriting their files',
    unrecorded: 'how one run writes, not what the webhooks are',
    replay: false,
  }),
] as const;

/** The values of {@link CREATE_WEBHOOK_FLAGS}, by field; a webhook kind left undefined is asked for on a TTY. */
export type CreateWebhookFlags = OptionsOf<typeof CREATE_WEBHOOK_FLAGS>;
