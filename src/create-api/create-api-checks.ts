/**
 * The checks of `kop create api` before anything is staged, and the answers they settle: a kind's
 * name and the names derived from it, its one plural and scope across versions, reconcilers that
 * would clash, and how a new version converts.
 */
import type { Context } from '../base/index.js';
import { KopError, UsageError } from '../base/index.js';
import { storageVersionOf } from '../markers/index.js';
import {
  fullGroup,
  type ProjectFile,
  type ProjectResource,
  controllersOf,
  CREATE_API_PATHS,
  type ControllerNames,
  checkKind,
  isDns1123Label,
  pluralOf,
  requireValid,
  singularOf,
  type NameCheck,
} from '../project/index.js';
import type { VirtualTree } from '../scaffold/index.js';
import type { CreateApiFlags } from './create-api-flags.js';

/**
 * Names the scaffolded and generated files import or use as types (kop/api, kop/runtime, vitest,
 * TypeScript's own): a kind of that name would clash with them, and the project would not compile.
 * test/create-api/reserved-kinds.test.ts checks that every such name in the templates is listed, and that
 * every kop name listed is still used (a name the scaffold stopped importing is a valid kind again).
 */
export const SCAFFOLD_IMPORTED_NAMES: readonly string[] = [
  // kop/api, in the types file
  'Condition',
  'ListMeta',
  'ObjectMeta',
  // kop/runtime, in the reconciler, its test and the generated client
  'Client',
  'Manager',
  'ReconcileContext',
  'ReconcileResult',
  'Request',
  'ResourceType',
];

export const RESERVED_KIND_NAMES: ReadonlySet<string> = new Set([
  ...SCAFFOLD_IMPORTED_NAMES,
  // TypeScript and JavaScript names the generated code uses
  'Array',
  'Boolean',
  'Date',
  'Error',
  'Function',
  'JSON',
  'Map',
  'Math',
  'Number',
  'Object',
  'Partial',
  'Promise',
  'Readonly',
  'Record',
  'RegExp',
  'Set',
  'String',
  'Symbol',
]);

export const checkKindName: NameCheck = (value) => {
  const result = checkKind(value);
  if (result !== true) return result;
  return RESERVED_KIND_NAMES.has(value)
    ? `invalid kind ${JSON.stringify(value)}: the scaffolded or generated code already uses the name ${value}, so a kind cannot have it (e.g. "${value}Set" or "App${value}")`
    : true;
};

/** File systems allow at most 255 bytes in one file name (ext4, APFS, NTFS...). */
const MAX_FILE_NAME_BYTES = 255;

/**
 * The names derived from a kind must hold too: its plural is a DNS label, the CRD name
 * `<plural>.<group>` a DNS subdomain, and the files named after them (the CRD kop generate
 * writes, the sample) fit in a file name.
 */
export function checkDerivedNames(
  kind: string,
  plural: string,
  fullGroupName: string,
  pluralGiven: boolean,
  sample: { group: string; version: string },
): void {
  if (!isDns1123Label(plural)) {
    throw new UsageError(
      `${pluralGiven ? '--plural' : `--kind ${kind}`}: the plural "${plural}" is ${plural.length} characters; the CRD needs a plural of at most 63`,
      pluralGiven ? 'pass a shorter --plural' : 'pass a shorter --plural, or pick a shorter kind',
    );
  }
  const crdName = `${plural}.${fullGroupName}`;
  if (crdName.length > 253) {
    throw new UsageError(
      `the CRD name "${crdName.slice(0, 40)}..." would be ${crdName.length} characters; at most 253 are allowed`,
      'pick a shorter --group, --plural or domain',
    );
  }
  const files = [
    // As schema/crd.ts names a CRD's file.
    {
      what: 'the CRD file config/crd/bases/',
      name: `${fullGroupName}_${plural}.yaml`,
      hint: 'pick a shorter --group or --plural',
    },
    {
      what: 'the sample config/samples/',
      name: `${sample.group}_${sample.version}_${singularOf(kind)}.yaml`,
      hint: 'pick a shorter --group or --kind',
    },
  ];
  for (const file of files) {
    const bytes = Buffer.byteLength(file.name);
    if (bytes > MAX_FILE_NAME_BYTES) {
      throw new UsageError(
        `${file.what}${file.name.slice(0, 20)}... would have a name of ${bytes} characters; file names are limited to ${MAX_FILE_NAME_BYTES}`,
        file.hint,
      );
    }
  }
}

export const checkPlural: NameCheck = (value) =>
  isDns1123Label(value)
    ? true
    : `invalid plural ${JSON.stringify(value)}: a plural must be lower case — letters, digits and '-', starting and ending with a letter or digit, at most 63 characters (e.g. "memcacheds")`;

/** How a new version of a kind converts: through the webhook of `hub` (with `spokes`), or by apiVersion alone. */
export type ConversionChoice = { strategy: 'Webhook'; hub: string; spokes: string[] } | { strategy: 'None' };

/** The answers of the conversion question on a terminal. */
const CONVERSION_ANSWERS = { webhook: 'webhook', none: 'none', later: 'later' } as const;

/**
 * The conversion of a new version of a kind, from --conversion / --no-conversion or, on a
 * terminal, asked; undefined when there is none to make (a first version, --no-resource) or it
 * is left for later. Refuses the flags where they cannot apply, before anything is staged.
 */
export async function chooseConversion(
  options: CreateApiFlags,
  context: Context,
  tree: VirtualTree,
  target: { group: string; version: string; kind: string; resource: boolean; sameKind: readonly ProjectResource[] },
): Promise<ConversionChoice | undefined> {
  const { group, version, kind, resource } = target;
  const flag = options.conversion === undefined ? undefined : options.conversion ? '--conversion' : '--no-conversion';
  const others = target.sameKind.filter((r) => r.version !== version);
  if (others.length === 0) {
    if (flag === undefined) return undefined;
    throw new UsageError(
      `${flag}: ${kind} has no other version, so ${version} would be its first and there is nothing to convert between; kop create api wrote nothing`,
      `leave ${flag} out now, and pass it when you add a second version (kop create api --group ${group} --version <another> --kind ${kind} ${flag})`,
    );
  }
  if (!resource) {
    if (flag === undefined) return undefined;
    throw new UsageError(
      `${flag} decides how the new version's types convert, so it needs --resource`,
      `leave ${flag} out with --no-resource`,
    );
  }
  // A kind converts through one hub: the one PROJECT records, else the storage version.
  const hubEntry = others.find((r) => r.webhooks?.conversion);
  const hub = hubEntry?.version ?? (await storageVersionOf(tree, others)).hub;
  let answer: string | undefined =
    options.conversion === undefined
      ? undefined
      : options.conversion
        ? CONVERSION_ANSWERS.webhook
        : CONVERSION_ANSWERS.none;
  // Off a terminal (and with --yes) an absent flag keeps the old behaviour: no conversion, a hint.
  if (answer === undefined && context.prompter.interactive) {
    answer = String(
      await context.prompter.ask({
        flag: '--conversion',
        type: 'select',
        message:
          `How do ${kind} objects convert between ${version} and ${others.map((r) => r.version).join(', ')}? ` +
          `webhook: conversion functions with ${hub} (the storage version) as the hub; ` +
          `none: the versions keep one schema and the apiserver only changes apiVersion (strategy None); ` +
          `later: kop create webhook --conversion adds it`,
        choices: Object.values(CONVERSION_ANSWERS),
        initial: hubEntry !== undefined ? CONVERSION_ANSWERS.webhook : CONVERSION_ANSWERS.later,
      }),
    );
  }
  if (answer === CONVERSION_ANSWERS.none) {
    if (hubEntry !== undefined) {
      throw new KopError(
        `${kind} converts through a webhook already (hub ${hubEntry.version}, PROJECT); a CRD has one conversion strategy, so ${version} converts through it too; kop create api wrote nothing`,
        `pass --conversion to add ${version} as a spoke`,
      );
    }
    return { strategy: 'None' };
  }
  if (answer !== CONVERSION_ANSWERS.webhook) return undefined;
  // Once the CRD converts through the webhook, every version does: the others become spokes too.
  const spokes = [
    version,
    ...others
      .filter((r) => r.version !== hub && !(hubEntry?.webhooks?.spoke ?? []).includes(r.version))
      .map((r) => r.version),
  ];
  return { strategy: 'Webhook', hub, spokes };
}

/**
 * A reconciler's name, file and class are unique in the project: the manager refuses two
 * controllers of one name (they label the metrics), and main.ts imports every class by name.
 */
export function checkControllerClash(
  project: ProjectFile,
  wanted: ControllerNames,
  self: { kind: string; group: string; version: string },
  force: boolean,
): void {
  for (const resource of project.resources) {
    for (const controller of controllersOf(resource, project)) {
      const file = CREATE_API_PATHS.namedControllerFile(controller);
      const clash =
        controller.name === wanted.name ||
        file === CREATE_API_PATHS.namedControllerFile(wanted) ||
        controller.localName === wanted.localName;
      if (!clash) continue;
      const sameKind = resource.kind === self.kind && fullGroup(resource) === self.group;
      if (sameKind && resource.version === self.version && force) continue;
      const what =
        controller.name === wanted.name
          ? `the name ${wanted.name}`
          : file === CREATE_API_PATHS.namedControllerFile(wanted)
            ? file
            : `the class ${wanted.localName}`;
      throw new KopError(
        `the reconciler ${controller.name} of ${resource.kind} ${fullGroup(resource) || 'core'}/${resource.version} already has ${what}; kop create api wrote nothing`,
        sameKind
          ? 'pick another --controller-name (each reconciler of a kind has its own)'
          : 'pass --controller-name to give this reconciler another name',
      );
    }
  }
}

/** A kind has one plural across its versions (the CRD has one); the default is the plural controller-gen gives it. */
export function resolvePlural(given: string | undefined, kind: string, sameKind: readonly ProjectResource[]): string {
  const recorded = sameKind[0]?.plural;
  if (given !== undefined) {
    requireValid(checkPlural, given, '--plural');
    if (recorded !== undefined && recorded !== given) {
      throw new UsageError(
        `--plural: ${kind} already has the plural "${recorded}" (one CRD serves every version)`,
        `pass --plural ${recorded} or leave it out`,
      );
    }
    return given;
  }
  return recorded ?? pluralOf(kind);
}

/** A kind has one scope across its versions. */
export function resolveScope(given: boolean | undefined, kind: string, sameKind: readonly ProjectResource[]): boolean {
  const recorded = sameKind.find((r) => r.api)?.api?.namespaced;
  if (given !== undefined && recorded !== undefined && recorded !== given) {
    throw new UsageError(
      `--namespaced: ${kind} is already ${recorded ? 'namespaced' : 'cluster-scoped'} (one CRD serves every version)`,
    );
  }
  return given ?? recorded ?? true;
}

/** Two kinds of one group cannot share a plural: they would be the same CRD. */
export function checkConflicts(project: ProjectFile, wanted: { group: string; kind: string; plural: string }): void {
  const clash = project.resources.find(
    (r) => fullGroup(r) === wanted.group && r.plural === wanted.plural && r.kind !== wanted.kind,
  );
  if (clash) {
    throw new UsageError(
      `--plural: ${clash.kind} in ${wanted.group} already uses the plural "${wanted.plural}"`,
      `pass another --plural for ${wanted.kind}`,
    );
  }
}
