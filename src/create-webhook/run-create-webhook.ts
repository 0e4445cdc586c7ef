import { askChecked, askYesNo, type NameCheck } from '../base/ask.js';
import type { Context } from '../base/context.js';
import { KopError, UsageError } from '../base/errors.js';
import { fullGroup, loadProjectFile, saveProjectFile, type ProjectResource, type ProjectWebhooks } from '../project/project-file.js';
import { CREATE_API_PATHS, resourceNamesOf, type ResourceNames } from '../project/resource-layout.js';
import { checkGroup, checkKind, checkVersion, descriptorNameOf } from '../project/resource.js';
import {
  admissionWebhookName,
  admissionWebhookPath,
  insertWebhookWiring,
  upperFirst,
  WEBHOOK_PATHS,
} from '../project/webhook-layout.js';
import { applyTree, type ApplyResult } from '../scaffold/apply.js';
import { loadBoilerplate } from '../scaffold/boilerplate.js';
import { renderTemplateDir, type TemplateData } from '../scaffold/render.js';
import { VirtualTree } from '../scaffold/tree.js';

/** `kop create webhook`'s flags; a webhook kind left undefined is asked for on a TTY. */
export interface CreateWebhookOptions {
  group?: string;
  version?: string;
  kind?: string;
  /** A mutating webhook that fills in defaults. */
  defaulting?: boolean;
  /** A validating webhook with checks in code. */
  programmaticValidation?: boolean;
  /** A conversion webhook: this version is the hub, `spoke` the versions that convert to it. */
  conversion?: boolean;
  /** Spoke versions, from `--spoke v2,v3` (repeatable). */
  spoke?: string[];
  force?: boolean;
}

const STORAGE_VERSION_MARKER = '+kubebuilder:storageversion';

/**
 * Adds webhooks to a kind/version of the project in `context.cwd`: a defaulter, a validator
 * and/or conversion functions per spoke version, each with a test through a real apiserver;
 * the shared wiring (src/webhooks/setup.ts, the call in src/main.ts, config/webhook,
 * config/certmanager, config/network-policy and config/default's patch and replacements) the
 * first time; and the PROJECT entry. Webhooks the kind already has are refused unless `force`.
 * Nothing is written when any step fails.
 */
export async function runCreateWebhook(options: CreateWebhookOptions, context: Context): Promise<ApplyResult> {
  const tree = new VirtualTree(context.cwd);
  const project = await loadProjectFile(tree);

  const group = await askChecked(context, options.group, checkGroup, { flag: '--group', type: 'text', message: 'API group of the kind (e.g. cache)' });
  const version = await askChecked(context, options.version, checkVersion, { flag: '--version', type: 'text', message: 'API version that gets the webhooks' });
  const kind = await askChecked(context, options.kind, checkKind, { flag: '--kind', type: 'text', message: 'Kind (e.g. Memcached)' });
  const fullGroupName = fullGroup({ group, domain: project.domain });
  const sameKind = project.resources.filter((r) => r.kind === kind && fullGroup(r) === fullGroupName);
  const resource = sameKind.find((r) => r.version === version);
  if (resource === undefined) {
    const versions = sameKind.map((r) => r.version);
    throw new KopError(
      `${kind} ${fullGroupName}/${version} is not in PROJECT${versions.length > 0 ? ` (it has ${versions.join(', ')})` : ''}; kop create webhook wrote nothing`,
      versions.length > 0 ? `pass one of --version ${versions.join(', ')}, or add the version with \`kop create api\`` : `add the kind first: kop create api --group ${group} --version ${version} --kind ${kind}`,
    );
  }
  const names = resourceNamesOf(resource);
  await requireTypes(tree, resource, names);

  const wanted = await askWebhookKinds(options, context, sameKind, version);
  const spokes = wanted.conversion ? await resolveSpokes(options, context, tree, sameKind, names) : [];
  const existing = resource.webhooks ?? {};
  const force = options.force ?? false;
  if (!force) refuseExisting(existing, wanted, spokes, names);
  if (wanted.conversion) await markHubAsStorageVersion(tree, sameKind, names);

  const data: TemplateData = {
    ...names,
    descriptor: descriptorNameOf(kind),
    namespaced: resource.api?.namespaced ?? true,
    defaultingPath: admissionWebhookPath('mutate', names),
    validationPath: admissionWebhookPath('validate', names),
    defaultingName: admissionWebhookName('mutate', names),
    validationName: admissionWebhookName('validate', names),
    licenseHeaderTs: await loadBoilerplate(tree, 'x.ts'),
    licenseHeaderYaml: await loadBoilerplate(tree, 'x.yaml'),
  };

  // Shared by every webhook of the project and the user's to edit: written once, never overwritten.
  for (const file of await renderTemplateDir('webhook/common', data)) await tree.scaffold(file.path, file.content, { ifExists: 'skip' });

  const registrations: { importLine: string; call: string }[] = [];
  const module = (file: string) => `./${file.replace(/^src\/webhooks\//, '').replace(/\.ts$/, '.js')}`;
  if (wanted.defaulting) {
    await scaffoldAll(tree, ['webhook/defaulting', 'webhook/defaulting-test'], data, force);
    registrations.push({
      importLine: `import { ${kind}Defaulter as ${kind}${upperFirst(version)}Defaulter } from '${module(WEBHOOK_PATHS.defaulterFile(names))}';`,
      call: `new ${kind}${upperFirst(version)}Defaulter().setupWithManager(manager);`,
    });
  }
  if (wanted.validation) {
    await scaffoldAll(tree, ['webhook/validation', 'webhook/validation-test'], data, force);
    registrations.push({
      importLine: `import { ${kind}Validator as ${kind}${upperFirst(version)}Validator } from '${module(WEBHOOK_PATHS.validatorFile(names))}';`,
      call: `new ${kind}${upperFirst(version)}Validator().setupWithManager(manager);`,
    });
  }
  for (const spoke of spokes) {
    const spokeData = { ...data, spoke, spokeUpper: upperFirst(spoke) };
    await scaffoldAll(tree, ['webhook/conversion', 'webhook/conversion-test'], spokeData, force);
    const setup = `setup${kind}${upperFirst(spoke)}Conversion`;
    registrations.push({ importLine: `import { ${setup} } from '${module(WEBHOOK_PATHS.conversionFile(names, spoke))}';`, call: `${setup}(manager);` });
  }
  await insertWebhookWiring(tree, registrations);

  resource.webhooks = recordWebhooks(existing, wanted, spokes);
  saveProjectFile(tree, project);

  const result = await applyTree(tree, context);
  if (result.written) {
    context.out.info(
      '\nNext: write the webhook logic in src/webhooks/, then run `npm run generate` for config/webhook/manifests.yaml' +
        (wanted.conversion ? ' and the conversion patch in config/crd/patches' : '') +
        '. In a cluster the webhooks need cert-manager for their certificate (config/certmanager).',
    );
  }
  return result;
}

interface WebhookKinds {
  defaulting: boolean;
  validation: boolean;
  conversion: boolean;
}

/** The webhook kinds from the flags; on a terminal, the ones not given are asked for. */
async function askWebhookKinds(options: CreateWebhookOptions, context: Context, sameKind: readonly ProjectResource[], version: string): Promise<WebhookKinds> {
  const given = [options.defaulting, options.programmaticValidation, options.conversion];
  if (given.every((flag) => flag === undefined) && !context.prompter.interactive) {
    throw new UsageError('no webhook to create', 'pass --defaulting, --programmatic-validation, or --conversion --spoke <version> (or several)');
  }
  const anyGiven = given.some((flag) => flag === true);
  // With one kind named on the command line, the others are off rather than asked.
  const ask = (flag: boolean | undefined) => (anyGiven ? (flag ?? false) : flag);
  const defaulting = await askYesNo(context, ask(options.defaulting), { flag: '--defaulting', type: 'confirm', message: 'Create a defaulting (mutating) webhook?', initial: true });
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
    throw new UsageError('no webhook to create: --defaulting, --programmatic-validation and --conversion are all off', 'pass at least one of them');
  }
  if (!conversion && options.spoke !== undefined && options.spoke.length > 0) {
    throw new UsageError('--spoke names the versions of a conversion webhook', 'pass --conversion too, or leave --spoke out');
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
  return [...new Set(values.flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== ''))];
}

/**
 * The spoke versions of a conversion: each another version of the kind, with types. The hub
 * (this version) is the one every spoke converts to, so a kind of one version cannot convert.
 */
async function resolveSpokes(
  options: CreateWebhookOptions,
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
    if (spoke === hub.version) throw new UsageError(`--spoke ${spoke}: that is the hub itself`, `pass the other versions: ${others.join(', ')}`);
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

async function requireTypes(tree: VirtualTree, resource: ProjectResource, names: ResourceNames): Promise<void> {
  const typesFile = resource.path ?? CREATE_API_PATHS.typesFile(names);
  if (!resource.api || !(await tree.exists(typesFile))) {
    throw new KopError(
      `${names.kind} ${names.apiVersion} has no types file (${typesFile}): its webhooks need the types; kop create webhook wrote nothing`,
      `scaffold them with \`kop create api --group ${names.group} --version ${names.version} --kind ${names.kind} --resource\``,
    );
  }
}

/** Names the webhooks that exist already, with the files --force would overwrite. */
function refuseExisting(existing: ProjectWebhooks, wanted: WebhookKinds, spokes: readonly string[], names: ResourceNames): void {
  const clashes: string[] = [];
  if (wanted.defaulting && existing.defaulting) clashes.push(`a defaulting webhook (${WEBHOOK_PATHS.defaulterFile(names)})`);
  if (wanted.validation && existing.validation) clashes.push(`a validating webhook (${WEBHOOK_PATHS.validatorFile(names)})`);
  for (const spoke of spokes) {
    if (existing.spoke?.includes(spoke)) clashes.push(`conversion with ${spoke} (${WEBHOOK_PATHS.conversionFile(names, spoke)})`);
  }
  if (clashes.length > 0) {
    throw new KopError(`${names.kind} ${names.apiVersion} already has ${clashes.join(', ')}; kop create webhook wrote nothing`, 'pass --force to scaffold them again (overwriting those files), or ask only for the webhooks it lacks');
  }
}

/**
 * The hub of a conversion is the version etcd stores: marks it `+kubebuilder:storageversion`
 * (as Kubebuilder's create webhook --conversion does) unless it is already, and refuses when
 * another version carries the marker.
 */
async function markHubAsStorageVersion(tree: VirtualTree, sameKind: readonly ProjectResource[], hub: ResourceNames): Promise<void> {
  for (const resource of sameKind) {
    if (resource.version === hub.version || !resource.api) continue;
    const names = resourceNamesOf(resource);
    const text = (await tree.read(resource.path ?? CREATE_API_PATHS.typesFile(names))) ?? '';
    if (rootDocComment(text, names.kind)?.text.includes(STORAGE_VERSION_MARKER)) {
      throw new KopError(
        `${hub.kind} ${resource.version} is marked ${STORAGE_VERSION_MARKER}, but the hub of a conversion is the storage version`,
        `pass --version ${resource.version} to make it the hub, or move the marker to ${hub.version}'s ${hub.kind} type`,
      );
    }
  }
  const hubResource = sameKind.find((r) => r.version === hub.version)!;
  const typesFile = hubResource.path ?? CREATE_API_PATHS.typesFile(hub);
  const text = (await tree.read(typesFile)) ?? '';
  const comment = rootDocComment(text, hub.kind);
  if (comment === undefined) {
    throw new KopError(
      `${typesFile} has no doc comment with +kubebuilder:object:root=true on its ${hub.kind} interface, so kop cannot mark it as the storage version`,
      `add \`${STORAGE_VERSION_MARKER}\` to the doc comment of ${hub.kind} in ${typesFile}, then re-run`,
    );
  }
  if (comment.text.includes(STORAGE_VERSION_MARKER)) return;
  const rootLine = /^([ \t]*\*[ \t]*)\+kubebuilder:object:root=true[ \t]*$/m.exec(comment.text)!;
  const insertAt = comment.start + rootLine.index + rootLine[0].length;
  const updated = `${text.slice(0, insertAt)}\n${rootLine[1]}${STORAGE_VERSION_MARKER}${text.slice(insertAt)}`;
  await tree.update(typesFile, () => updated, 'inserted');
}

/** The JSDoc block right above `export interface <kind> {` that holds the root marker, if any. */
function rootDocComment(text: string, kind: string): { text: string; start: number } | undefined {
  const declaration = new RegExp(`^export interface ${kind}\\b`, 'm').exec(text);
  if (!declaration) return undefined;
  const before = text.slice(0, declaration.index);
  const start = before.lastIndexOf('/**');
  const end = before.lastIndexOf('*/');
  if (start === -1 || end < start || before.slice(end + 2).trim() !== '') return undefined;
  const comment = before.slice(start, end + 2);
  if (!/^[ \t]*\*[ \t]*\+kubebuilder:object:root=true[ \t]*$/m.test(comment)) return undefined;
  return { text: comment, start };
}

async function scaffoldAll(tree: VirtualTree, templateDirs: readonly string[], data: TemplateData, force: boolean): Promise<void> {
  for (const dir of templateDirs) {
    for (const file of await renderTemplateDir(dir, data)) await tree.scaffold(file.path, file.content, { force });
  }
}

/** The PROJECT entry after this run: what was there plus what was added, in Kubebuilder's key order. */
function recordWebhooks(existing: ProjectWebhooks, wanted: WebhookKinds, spokes: readonly string[]): ProjectWebhooks {
  const spoke = [...new Set([...(existing.spoke ?? []), ...spokes])].sort();
  return {
    ...(existing.conversion || wanted.conversion ? { conversion: true } : {}),
    ...(existing.defaulting || wanted.defaulting ? { defaulting: true } : {}),
    ...(spoke.length > 0 ? { spoke } : {}),
    ...(existing.validation || wanted.validation ? { validation: true } : {}),
    webhookVersion: 'v1',
  };
}
