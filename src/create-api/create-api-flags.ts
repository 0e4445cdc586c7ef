/**
 * `kop create api`'s flags, each declared once: its spelling and help (the command registers
 * them), its field in {@link CreateApiFlags}, what PROJECT records for it and how `kop alpha
 * generate` passes it again (project/command-flags.ts). Plugins add their own tables
 * (plugins/deploy-image/deploy-image-flags.ts). Light: `kop --help` loads it.
 */
import { flag, type OptionsOf } from '../project/command-flags.js';
import type { ProjectResource } from '../project/index.js';

type ProjectApi = NonNullable<ProjectResource['api']>;

/** The keys of a kind's `api:` entry in the order PROJECT has them. */
const API_KEYS: readonly (keyof ProjectApi)[] = ['crdVersion', 'namespaced', 'ssa', 'conversion'];

/**
 * Sets one key of the `api:` a run records (undefined removes it), the keys in PROJECT's order.
 * A run that scaffolds no types records no `api:` (the `resource` flag removes it), so the kind keeps the one it has.
 */
function setApi<K extends keyof ProjectApi>(resource: ProjectResource, key: K, value: ProjectApi[K] | undefined): void {
  const api: Partial<ProjectApi> = { crdVersion: 'v1', namespaced: true, ...resource.api, [key]: value };
  if (value === undefined) delete api[key];
  resource.api = Object.fromEntries(API_KEYS.filter((k) => api[k] !== undefined).map((k) => [k, api[k]])) as ProjectApi;
}

export const CREATE_API_FLAGS = [
  flag({
    name: 'group',
    type: 'value',
    arg: '<group>',
    help: 'API group without the domain, e.g. cache (gives cache.<domain>)',
    recorded: ({ resource }) => resource.group,
    record: (resource, group) => {
      if (group !== undefined) resource.group = group;
    },
  }),
  flag({
    name: 'version',
    type: 'value',
    arg: '<version>',
    help: 'API version: v1, v1alpha1, v2beta3, ...',
    recorded: ({ resource }) => resource.version,
    record: (resource, version) => {
      if (version !== undefined) resource.version = version;
    },
  }),
  flag({
    name: 'kind',
    type: 'value',
    arg: '<Kind>',
    help: 'kind, UpperCamelCase, e.g. Memcached',
    recorded: ({ resource }) => resource.kind,
    record: (resource, kind) => {
      if (kind !== undefined) resource.kind = kind;
    },
  }),
  flag({
    name: 'plural',
    type: 'value',
    arg: '<plural>',
    help: 'lower-case plural used in URLs (default: English plural of the kind)',
    recorded: ({ resource }) => resource.plural,
    record: (resource, plural) => {
      if (plural !== undefined) resource.plural = plural;
    },
  }),
  flag({
    name: 'namespaced',
    type: 'toggle',
    help: 'objects live in namespaces (default)',
    noHelp: 'objects are cluster-scoped',
    recorded: ({ resource }) => resource.api?.namespaced,
    record: (resource, namespaced) => {
      if (namespaced !== undefined) setApi(resource, 'namespaced', namespaced);
    },
  }),
  flag({
    name: 'resource',
    type: 'toggle',
    help: 'scaffold the API types and sample (asked on a terminal; default yes)',
    noHelp: 'do not scaffold the API types',
    recorded: ({ resource }) => resource.api !== undefined,
    // The types scaffolded: the kind's `api:` (its CRD is generated here); else the run records none.
    record: (resource, on) => {
      if (on === true) setApi(resource, 'crdVersion', 'v1');
      else delete resource.api;
    },
  }),
  flag({
    name: 'controller',
    type: 'toggle',
    help: 'scaffold a reconciler and register it in src/main.ts (asked on a terminal; default yes)',
    noHelp: 'do not scaffold a reconciler',
    recorded: ({ controllers }) => controllers.length > 0,
    // The run's reconciler, unnamed until --controller-name names it; create api merges it with the kind's others.
    record: (resource, on) => {
      if (on === true) resource.controller = true;
      else delete resource.controller;
    },
  }),
  flag({
    name: 'controller-name',
    type: 'value',
    arg: '<name>',
    help: 'name of the reconciler (DNS-1035 label), for several reconcilers of one kind: src/controllers/[<group>/]<name>.controller.ts (the group folder in multigroup projects), its name in logs and metrics',
    // The first reconciler replayed; create api replays the others with --no-resource.
    recorded: ({ controllers }) => controllers[0],
    record: (resource, name) => {
      if (name === undefined || resource.controller !== true) return;
      delete resource.controller;
      resource.controllers = [{ name }];
    },
  }),
  flag({
    name: 'external-api-path',
    type: 'value',
    arg: '<path>',
    help: 'a kind another project owns: where its type and descriptor come from (a folder under api/, or a module of an npm package)',
    unrecorded: "PROJECT records the kind's `path` and `module`; the replay passes the external flags from them",
  }),
  flag({
    name: 'external-api-domain',
    type: 'value',
    arg: '<domain>',
    help: "with --external-api-path: the domain that completes --group to the kind's API group (e.g. io for cert-manager.io)",
    unrecorded: "PROJECT records the kind's `domain`; the replay passes it when it is not the project's",
  }),
  flag({
    name: 'external-api-module',
    type: 'value',
    arg: '<module>',
    help: 'where the external kind comes from: an npm package spec (name@range, added to package.json) or a CRD file or folder (imported as kop import crd does)',
    unrecorded: "PROJECT records it as the kind's `module` (through the import); the replay passes it from there",
  }),
  flag({
    name: 'conversion',
    type: 'toggle',
    help: "for a new version of a kind: scaffold its conversion as `kop create webhook --conversion` does, the storage version the hub and the kind's other versions spokes (asked on a terminal)",
    noHelp:
      "for a new version of a kind: no conversion webhook, the versions have the same schema and the apiserver converts them by apiVersion alone (the CRD's strategy None, recorded in PROJECT)",
    // The webhook is replayed by create webhook from the hub's entry; only the None choice is create api's.
    recorded: ({ resource }) => (resource.api?.conversion === 'None' ? false : undefined),
    record: (resource, on) => {
      if (resource.api !== undefined) setApi(resource, 'conversion', on === false ? 'None' : undefined);
    },
  }),
  flag({
    name: 'force',
    type: 'switch',
    help: 'overwrite the files of an existing kind/version',
    unrecorded: 'how one run writes, not what the kind is',
    replay: false,
  }),
  flag({
    name: 'ssa',
    type: 'switch',
    help: 'server-side apply: kop generate writes typed apply configurations (<kind>.apply.ts) and the reconciler applies with a field manager (needs --resource)',
    recorded: ({ resource }) => (resource.api?.ssa === true ? true : undefined),
    record: (resource, on) => {
      if (resource.api !== undefined) setApi(resource, 'ssa', on === true ? true : undefined);
    },
  }),
] as const;

/** The values of {@link CREATE_API_FLAGS}, by field; anything left undefined is asked for on a TTY or defaulted. */
export type CreateApiFlags = OptionsOf<typeof CREATE_API_FLAGS>;
