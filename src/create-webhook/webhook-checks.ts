/**
 * The checks of `kop create webhook` before anything is staged: the path flags, the webhook kinds
 * asked for, the spokes of a conversion, webhooks the kind has already, and the hub as the
 * storage version.
 */
import { askChecked, askYesNo, requireValid, type NameCheck } from '../base/index.js';
import { type Context, KopError, UsageError } from '../base/index.js';
import {
  declarationMarkers,
  formatLocation,
  isMarker,
  STORAGE_VERSION_MARKER,
  storageVersionMarks,
} from '../markers/index.js';
import {
  fullGroup,
  type ProjectFile,
  type ProjectResource,
  type ProjectWebhooks,
  CREATE_API_PATHS,
  resourceNamesOf,
  type ResourceNames,
  checkVersion,
  admissionWebhookPath,
  checkWebhookPath,
  WEBHOOK_PATHS,
} from '../project/index.js';
import type { VirtualTree } from '../scaffold/index.js';
import type { CreateWebhookFlags } from './create-webhook-flags.js';
import { requireTypes } from './webhook-target.js';

/** `--defaulting-path` / `--validation-path`: URL paths of their own, never the same one. */
export function checkPathFlags(options: CreateWebhookFlags): void {
  if (options.defaultingPath !== undefined) requireValid(checkWebhookPath, options.defaultingPath, '--defaulting-path');
  if (options.validationPath !== undefined) requireValid(checkWebhookPath, options.validationPath, '--validation-path');
  if (options.defaultingPath !== undefined && options.defaultingPath === options.validationPath) {
    throw new UsageError(
      `--defaulting-path and --validation-path are both ${options.defaultingPath}: the manager serves one webhook per path`,
      'give the two webhooks different paths',
    );
  }
}

/** A path another webhook of the project serves already (its recorded or default path) is refused. */
export function refusePathClashes(
  project: ProjectFile,
  self: ProjectResource,
  names: ResourceNames,
  paths: { defaulting?: string; validation?: string },
): void {
  const taken = new Map<string, string>();
  for (const resource of project.resources) {
    if (resource === self || resource.webhooks === undefined) continue;
    const other = { fullGroup: fullGroup(resource), version: resource.version, kind: resource.kind };
    const where = `${resource.kind} ${other.fullGroup === '' ? '' : `${other.fullGroup}/`}${resource.version}`;
    if (resource.webhooks.defaulting)
      taken.set(
        resource.webhooks.defaultingPath ?? admissionWebhookPath('mutate', other),
        `the defaulting webhook of ${where}`,
      );
    if (resource.webhooks.validation)
      taken.set(
        resource.webhooks.validationPath ?? admissionWebhookPath('validate', other),
        `the validating webhook of ${where}`,
      );
  }
  for (const [flag, path] of [
    ['--defaulting-path', paths.defaulting ?? admissionWebhookPath('mutate', names)],
    ['--validation-path', paths.validation ?? admissionWebhookPath('validate', names)],
  ] as const) {
    const owner = taken.get(path);
    if (owner !== undefined)
      throw new KopError(
        `${path} is already the path of ${owner}; kop create webhook wrote nothing`,
        `pass ${flag} with another path`,
      );
  }
}

export interface WebhookKinds {
  defaulting: boolean;
  validation: boolean;
  conversion: boolean;
}

/** The webhook kinds from the flags; on a terminal, the ones not given are asked for. */
export async function askWebhookKinds(
  options: CreateWebhookFlags,
  context: Context,
  sameKind: readonly ProjectResource[],
  version: string,
): Promise<WebhookKinds> {
  const given = [options.defaulting, options.programmaticValidation, options.conversion];
  if (given.every((flag) => flag === undefined) && !context.prompter.interactive) {
    throw new UsageError(
      'no webhook to create',
      'pass --defaulting, --programmatic-validation, or --conversion --spoke <version> (or several)',
    );
  }
  const anyGiven = given.some((flag) => flag === true);
  // With one kind named on the command line, the others are off rather than asked.
  const ask = (flag: boolean | undefined) => (anyGiven ? (flag ?? false) : flag);
  const defaulting = await askYesNo(context, ask(options.defaulting), {
    flag: '--defaulting',
    type: 'confirm',
    message: 'Create a defaulting (mutating) webhook?',
    initial: true,
  });
  const validation = await askYesNo(context, ask(options.programmaticValidation), {
    flag: '--programmatic-validation',
    type: 'confirm',
    message: 'Create a validating webhook?',
    initial: true,
  });
  const otherVersions = sameKind.filter((r) => r.version !== version).length > 0;
  const conversion = await askYesNo(context, ask(options.conversion), {
    flag: '--conversion',
    type: 'confirm',
    message: `Create a conversion webhook with ${version} as the hub?`,
    initial: otherVersions,
  });
  if (!defaulting && !validation && !conversion) {
    throw new UsageError(
      'no webhook to create: --defaulting, --programmatic-validation and --conversion are all off',
      'pass at least one of them',
    );
  }
  if (!conversion && options.spoke !== undefined && options.spoke.length > 0) {
    throw new UsageError(
      '--spoke names the versions of a conversion webhook',
      'pass --conversion too, or leave --spoke out',
    );
  }
  return { defaulting, validation, conversion };
}

const checkVersionList: NameCheck = (value) => {
  const versions = splitVersions([value]);
  if (versions.length === 0) return 'name at least one version, e.g. v1alpha1';
  for (const version of versions) {
    const result = checkVersion(version);
    if (result !== true) return result;
  }
  return true;
};

function splitVersions(values: readonly string[]): string[] {
  return [
    ...new Set(
      values
        .flatMap((value) => value.split(','))
        .map((value) => value.trim())
        .filter((value) => value !== ''),
    ),
  ];
}

/**
 * The spoke versions of a conversion: each another version of the kind, with types. The hub
 * (this version) is the one every spoke converts to, so a kind of one version cannot convert.
 */
export async function resolveSpokes(
  options: CreateWebhookFlags,
  context: Context,
  tree: VirtualTree,
  sameKind: readonly ProjectResource[],
  hub: ResourceNames,
): Promise<string[]> {
  const others = sameKind.filter((r) => r.version !== hub.version).map((r) => r.version);
  if (others.length === 0) {
    throw new KopError(
      `${hub.kind} has only the version ${hub.version}: a conversion webhook converts between versions; kop create webhook wrote nothing`,
      `add a version first (kop create api --group ${hub.group} --version <another> --kind ${hub.kind}), then pass --conversion --spoke <it>`,
    );
  }
  const given = options.spoke !== undefined && options.spoke.length > 0 ? options.spoke.join(',') : undefined;
  const answer = await askChecked(context, given, checkVersionList, {
    flag: '--spoke',
    type: 'text',
    message: `Spoke versions that convert to and from ${hub.version} (comma-separated)`,
    initial: others.join(','),
  });
  const spokes = splitVersions([answer]);
  const hubOwner = sameKind.find((r) => r.webhooks?.conversion && r.version !== hub.version);
  if (hubOwner) {
    throw new KopError(
      `${hub.kind} already converts through the hub ${hubOwner.version}; a kind has one hub`,
      `pass --version ${hubOwner.version} --conversion --spoke ${spokes.join(',')}`,
    );
  }
  for (const spoke of spokes) {
    if (spoke === hub.version)
      throw new UsageError(`--spoke ${spoke}: that is the hub itself`, `pass the other versions: ${others.join(', ')}`);
    const entry = sameKind.find((r) => r.version === spoke);
    if (entry === undefined) {
      throw new KopError(
        `--spoke ${spoke}: ${hub.kind} has no version ${spoke} (it has ${sameKind.map((r) => r.version).join(', ')}); kop create webhook wrote nothing`,
        `pass one of ${others.join(', ')}, or add ${spoke} with \`kop create api --group ${hub.group} --version ${spoke} --kind ${hub.kind}\``,
      );
    }
    await requireTypes(tree, entry, resourceNamesOf(entry));
  }
  return spokes;
}

/** Names the webhooks that exist already, with the files --force would overwrite. */
export function refuseExisting(
  existing: ProjectWebhooks,
  wanted: WebhookKinds,
  spokes: readonly string[],
  names: ResourceNames,
): void {
  const clashes: string[] = [];
  if (wanted.defaulting && existing.defaulting)
    clashes.push(`a defaulting webhook (${WEBHOOK_PATHS.defaulterFile(names)})`);
  if (wanted.validation && existing.validation)
    clashes.push(`a validating webhook (${WEBHOOK_PATHS.validatorFile(names)})`);
  for (const spoke of spokes) {
    if (existing.spoke?.includes(spoke))
      clashes.push(`conversion with ${spoke} (${WEBHOOK_PATHS.conversionFile(names, spoke)})`);
  }
  if (clashes.length > 0) {
    throw new KopError(
      `${names.kind} ${names.apiVersion} already has ${clashes.join(', ')}; kop create webhook wrote nothing`,
      'pass --force to scaffold them again (overwriting those files), or ask only for the webhooks it lacks',
    );
  }
}

/**
 * The hub of a conversion is the version etcd stores: marks it `+kubebuilder:storageversion`
 * (as Kubebuilder's create webhook --conversion does) unless it is already, and refuses when
 * another version carries the marker. Markers are found where `kop generate` finds them (the
 * root type's doc comment or the comment group right above it, `declarationMarkers`).
 */
export async function markHubAsStorageVersion(
  tree: VirtualTree,
  sameKind: readonly ProjectResource[],
  hub: ResourceNames,
): Promise<void> {
  const other = (await storageVersionMarks(tree, sameKind)).find((mark) => mark.resource.version !== hub.version);
  if (other !== undefined) {
    throw new KopError(
      `${hub.kind} ${other.resource.version} is marked ${STORAGE_VERSION_MARKER} (${formatLocation(other.marker.location)}), but the hub of a conversion is the storage version`,
      `pass --version ${other.resource.version} to make it the hub, or move the marker to ${hub.version}'s ${hub.kind} type`,
    );
  }
  const hubResource = sameKind.find((r) => r.version === hub.version)!;
  const typesFile = hubResource.path ?? CREATE_API_PATHS.typesFile(hub);
  const text = (await tree.read(typesFile)) ?? '';
  const markers = await declarationMarkers(text, typesFile, hub.kind);
  const root = markers?.find((m) => isMarker(m.text, '+kubebuilder:object:root=true'));
  if (markers === undefined || root === undefined) {
    throw new KopError(
      markers === undefined
        ? `${typesFile} declares no ${hub.kind} interface, so kop cannot mark it as the storage version; kop create webhook wrote nothing`
        : `${typesFile}: ${hub.kind} has no +kubebuilder:object:root=true in its doc comment or the comment group above it, so it is no root type kop can mark as the storage version; kop create webhook wrote nothing`,
      `declare ${hub.kind} with +kubebuilder:object:root=true and ${STORAGE_VERSION_MARKER} above it in ${typesFile}, then re-run`,
    );
  }
  if (markers.some((m) => isMarker(m.text, STORAGE_VERSION_MARKER))) return;
  // The new marker goes on the line after the root marker, written the way that line is (`//` or ` *`).
  const lines = text.split('\n');
  const rootLine = lines[root.location.line - 1]!;
  const prefix = rootLine.slice(0, rootLine.indexOf('+'));
  lines.splice(root.location.line, 0, `${prefix}${STORAGE_VERSION_MARKER}`);
  await tree.update(typesFile, () => lines.join('\n'), 'inserted');
}
