/**
 * The file layout of a kind's webhooks and their wiring: `kop create webhook` writes these
 * files and lines, and `kop generate` derives the conversion patches from the same PROJECT
 * entries. The paths and names follow controller-runtime's defaults, so the markers the scaffold
 * writes and the paths kop/runtime serves agree.
 */
import { insertIntoFile } from '../scaffold/index.js';
import type { VirtualTree } from '../scaffold/index.js';
import type { ProjectResource } from './project-file.js';
import { roleStemOf, type ResourceNames } from './resource-layout.js';
import { singularOf } from './resource.js';

export { checkWebhookPath } from './webhook-path.js';

/** Files and markers `kop create webhook` writes. */
export const WEBHOOK_PATHS = {
  defaulterFile: (r: ResourceNames) => `src/webhooks/${r.group}/${r.version}/${r.kindLower}.defaulter.ts`,
  validatorFile: (r: ResourceNames) => `src/webhooks/${r.group}/${r.version}/${r.kindLower}.validator.ts`,
  conversionFile: (r: ResourceNames, spoke: string) => `src/webhooks/${r.group}/${spoke}/${r.kindLower}.conversion.ts`,
  defaulterTestFile: (r: ResourceNames) => `test/webhooks/${r.group}/${r.version}/${r.kindLower}.defaulter.test.ts`,
  validatorTestFile: (r: ResourceNames) => `test/webhooks/${r.group}/${r.version}/${r.kindLower}.validator.test.ts`,
  conversionTestFile: (r: ResourceNames, spoke: string) =>
    `test/webhooks/${r.group}/${spoke}/${r.kindLower}.conversion.test.ts`,
  setup: 'src/webhooks/setup.ts',
  defaultKustomization: 'config/default/kustomization.yaml',
  networkPolicyKustomization: 'config/network-policy/kustomization.yaml',
  certManagerKustomization: 'config/certmanager/kustomization.yaml',
  main: 'src/main.ts',
} as const;

/** What Kubebuilder's conversion patch for a CRD is called (config/crd/patches/webhook_in_<plural>.yaml). */
export function conversionPatchFile(plural: string): string {
  return `config/crd/patches/webhook_in_${plural}.yaml`;
}

/**
 * controller-runtime's default path of a kind's admission webhook:
 * `/mutate-<group, dots as dashes>-<version>-<lower-case kind>` (and `/validate-...`).
 */
export function admissionWebhookPath(
  type: 'mutate' | 'validate',
  names: Pick<ResourceNames, 'fullGroup' | 'version' | 'kind'>,
): string {
  return `/${type}-${names.fullGroup.replace(/\./g, '-')}-${names.version}-${names.kind.toLowerCase()}`;
}

/**
 * The webhook's name in its configuration, as Kubebuilder scaffolds it: `m<kind>-<version>.kb.io` /
 * `v<kind>-<version>.kb.io`; with `group` (a kind whose name another group's kind had first, see
 * {@link webhookNamePrefix}) `m<group>-<kind>-<version>.kb.io`, since names are unique in a configuration.
 */
export function admissionWebhookName(
  type: 'mutate' | 'validate',
  names: Pick<ResourceNames, 'version' | 'kind'>,
  group?: string,
): string {
  return `${type === 'mutate' ? 'm' : 'v'}${group ? `${group.replace(/\./g, '-')}-` : ''}${names.kind.toLowerCase()}-${names.version}.kb.io`;
}

/**
 * What src/webhooks/setup.ts prefixes a kind's webhook classes with when it imports them: in a
 * multigroup project the group in PascalCase (`FizBarV1Defaulter`), as its reconcilers are
 * imported in main.ts; otherwise nothing, unless a kind of the same name in another group came
 * first in PROJECT (the rule of {@link roleStemOf}). So the same kind in two groups never imports
 * two classes under one name. The webhooks' names are qualified alike ({@link admissionWebhookName}).
 */
export function webhookNamePrefix(
  resource: Pick<ProjectResource, 'group' | 'kind' | 'domain' | 'core'>,
  project: { multigroup?: boolean; resources: readonly ProjectResource[] },
): string {
  if (project.multigroup !== true && roleStemOf(resource, project.resources) === singularOf(resource.kind)) return '';
  return resource.group
    .split(/[-.]/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** One webhook's two lines in src/webhooks/setup.ts: its import and its registration. */
export interface WebhookRegistration {
  importLine: string;
  call: string;
}

/**
 * The setup.ts lines of a kind's defaulter, validator or conversion from `spoke`, each class
 * imported under `<prefix><Kind><Version>` (see {@link webhookNamePrefix}).
 */
export function webhookRegistration(
  names: ResourceNames,
  prefix: string,
  what: 'defaulting' | 'validation' | { spoke: string },
): WebhookRegistration {
  const module = (file: string) => `./${file.replace(/^src\/webhooks\//, '').replace(/\.ts$/, '.js')}`;
  const { kind, version } = names;
  const local = `${prefix}${kind}`;
  if (what === 'defaulting' || what === 'validation') {
    const role = what === 'defaulting' ? 'Defaulter' : 'Validator';
    const file = what === 'defaulting' ? WEBHOOK_PATHS.defaulterFile(names) : WEBHOOK_PATHS.validatorFile(names);
    return {
      importLine: `import { ${kind}${role} as ${local}${upperFirst(version)}${role} } from '${module(file)}';`,
      call: `new ${local}${upperFirst(version)}${role}().setupWithManager(manager);`,
    };
  }
  const setup = `setup${kind}${upperFirst(what.spoke)}Conversion`;
  const alias = `setup${local}${upperFirst(what.spoke)}Conversion`;
  return {
    importLine: `import { ${alias === setup ? setup : `${setup} as ${alias}`} } from '${module(WEBHOOK_PATHS.conversionFile(names, what.spoke))}';`,
    call: `${alias}(manager);`,
  };
}

/** The version with a capital first letter, for function names: v1alpha1 -> V1alpha1. */
export function upperFirst(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1);
}

/**
 * The call main.ts makes, behind Kubebuilder's switch: `ENABLE_WEBHOOKS=false npm start` runs the
 * manager against a cluster without its webhooks, and so without a serving certificate.
 */
export const MAIN_WEBHOOK_CALL = [
  '// ENABLE_WEBHOOKS=false runs the manager without its webhooks, so without a serving certificate',
  "// (`npm start` against a cluster, as Kubebuilder's `make run`); `kop dev` serves them with one of its own.",
  "if (process.env.ENABLE_WEBHOOKS !== 'false') setupWebhooks(manager);",
].join('\n');

/**
 * Stages the lines that wire webhooks into the project: src/webhooks/setup.ts registers each
 * webhook, src/main.ts calls setupWebhooks once, config/network-policy and config/certmanager
 * list the webhook's NetworkPolicy and Certificate, and config/default turns on the webhook
 * Service, cert-manager, the network policies, the manager patch and the CA injection. Lines
 * already there are skipped.
 */
export async function insertWebhookWiring(
  tree: VirtualTree,
  registrations: readonly { importLine: string; call: string }[],
): Promise<void> {
  await insertIntoFile(tree, WEBHOOK_PATHS.setup, [
    ...registrations.map((r) => ({ marker: 'imports', code: r.importLine })),
    ...registrations.map((r) => ({ marker: 'webhooks', code: r.call })),
  ]);
  // A main.ts that calls setupWebhooks already (with or without the ENABLE_WEBHOOKS check) gets no second call.
  const main = (await tree.read(WEBHOOK_PATHS.main)) ?? '';
  await insertIntoFile(tree, WEBHOOK_PATHS.main, [
    { marker: 'imports', code: "import { setupWebhooks } from './webhooks/setup.js';" },
    ...(/\bsetupWebhooks\(manager\)/.test(main) ? [] : [{ marker: 'controllers', code: MAIN_WEBHOOK_CALL }]),
  ]);
  // Into the folders `kop init` scaffolds (or the webhook templates wrote just now, in projects
  // made before init did): each file's own list keeps what the project has there already.
  await insertIntoFile(tree, WEBHOOK_PATHS.networkPolicyKustomization, [
    { marker: 'network-policies', code: '- allow-webhook-traffic.yaml' },
  ]);
  await insertIntoFile(tree, WEBHOOK_PATHS.certManagerKustomization, [
    { marker: 'certificates', code: '- certificate-webhook.yaml' },
  ]);
  // One line each: a folder the user turned on already ([CERTMANAGER], [NETWORK-POLICY]) is not listed twice.
  await insertIntoFile(tree, WEBHOOK_PATHS.defaultKustomization, [
    { marker: 'resources', code: '- ../webhook' },
    { marker: 'resources', code: '- ../certmanager' },
    { marker: 'resources', code: '- ../network-policy' },
    {
      marker: 'patches',
      code: '# Mounts the webhook certificate and exposes port 9443.\n- path: manager_webhook_patch.yaml\n  target:\n    kind: Deployment',
    },
    {
      marker: 'replacements',
      code: '# Written by `kop generate`: certificate names and cert-manager CA injection.\n- path: webhook_replacements.yaml',
    },
  ]);
}
