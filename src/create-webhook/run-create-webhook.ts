import { posix } from 'node:path';
import {
  askChecked,
  askYesNo,
  requireValid,
  type NameCheck,
  type Context,
  KopError,
  UsageError,
} from '../base/index.js';
import { declarationMarkers, formatLocation } from '../markers/index.js';
import {
  fullGroup,
  loadProjectFile,
  saveProjectFile,
  type ProjectFile,
  type ProjectResource,
  type ProjectWebhooks,
  resolveResource,
  type Resource,
  CREATE_API_PATHS,
  resourceNamesOf,
  type ResourceNames,
  checkDomain,
  checkGroup,
  checkKind,
  checkVersion,
  descriptorNameOf,
  singularOf,
  admissionWebhookName,
  admissionWebhookPath,
  checkWebhookPath,
  insertWebhookWiring,
  upperFirst,
  WEBHOOK_PATHS,
  webhookNamePrefix,
  webhookRegistration,
  type WebhookRegistration,
  moduleFrom,
  scaffoldKindFixture,
} from '../project/index.js';
import {
  flushTree,
  type FlushResult,
  loadBoilerplate,
  renderTemplateDir,
  type TemplateData,
  VirtualTree,
} from '../scaffold/index.js';
import {
  checkExternalApiFlags,
  isCrdSource,
  isGoModule,
  resolveExternalKind,
  type ExternalApiFlags,
} from '../import/index.js';
import type { CreateWebhookFlags } from './create-webhook-flags.js';
import { specFitsFooExample } from './spec-example.js';

/** `kop create webhook`'s options: one field per flag of CREATE_WEBHOOK_FLAGS (create-webhook-flags.ts), where each is declared once. */
export type CreateWebhookOptions = CreateWebhookFlags;

const STORAGE_VERSION_MARKER = '+kubebuilder:storageversion';

/**
 * Adds webhooks to a kind/version of the project in `context.cwd`: a defaulter, a validator
 * and/or conversion functions per spoke version, each with a test through a real apiserver;
 * the shared wiring (src/webhooks/setup.ts, the call in src/main.ts, config/webhook,
 * config/certmanager, config/network-policy and config/default's patch and replacements) the
 * first time; and the PROJECT entry. Webhooks the kind already has are refused unless `force`.
 * Nothing is written when any step fails.
 */
export async function runCreateWebhook(options: CreateWebhookOptions, context: Context): Promise<FlushResult> {
  const tree = new VirtualTree(context.cwd);
  const project = await loadProjectFile(tree);
  const { next } = await stageCreateWebhook(options, context, tree, project);
  saveProjectFile(tree, project);
  const result = await flushTree(tree, context);
  if (result.written) context.out.info(`\nNext: ${next}`);
  return result;
}

/**
 * Stages what `kop create webhook` writes into `tree` and records it in `project`, without saving
 * or writing anything: `kop create api --conversion` stages the conversion of a new version
 * through it, in the same plan as the version's own files. Returns what to do next.
 */
export async function stageCreateWebhook(
  options: CreateWebhookOptions,
  context: Context,
  tree: VirtualTree,
  project: ProjectFile,
): Promise<{ next: string }> {
  const group = await askChecked(context, options.group, checkGroup, {
    flag: '--group',
    type: 'text',
    message: 'API group of the kind (e.g. cache)',
  });
  const version = await askChecked(context, options.version, checkVersion, {
    flag: '--version',
    type: 'text',
    message: 'API version that gets the webhooks',
  });
  const kind = await askChecked(context, options.kind, checkKind, {
    flag: '--kind',
    type: 'text',
    message: 'Kind (e.g. Memcached)',
  });
  checkPathFlags(options);
  const external: ExternalApiFlags = {
    path: options.externalApiPath,
    domain: options.externalApiDomain,
    module: options.externalApiModule,
  };
  if (external.domain !== undefined) requireValid(checkDomain, external.domain, '--external-api-domain');
  if (external.module !== undefined) {
    // The kind's CRD comes with the command, as for create api: imported unless an earlier command brought it from the same module.
    if (!isCrdSource(external.module) && !isGoModule(external.module)) {
      throw new UsageError(
        `--external-api-module ${external.module}: a webhook is written against the kind's types and typed client, which kop generates from its CRD`,
        "pass the kind's CRD file or folder as --external-api-module (or import it first with kop import crd)",
      );
    }
    checkExternalApiFlags(external);
    await resolveExternalKind(external, { group, version, kind }, tree, project, context);
  }
  const target = resolveTarget(project, { group, version, kind }, options);
  const { names } = target;
  const sameKind = target.resource.versions;
  if (options.plural !== undefined && options.plural !== names.plural) {
    throw new UsageError(
      `--plural ${options.plural}: PROJECT records ${kind}'s plural as ${names.plural}`,
      `leave --plural out, or pass --plural ${names.plural}`,
    );
  }
  const { resource } = target;
  const origin = resource.origin.type;
  const ownTypes = origin === 'own';
  const externalKind = origin === 'imported' || origin === 'package';
  if (ownTypes) await requireTypes(tree, resource.entry, names);
  // The spec.foo example only where the kind's spec still has create api's sample field; else the label example.
  const fooExample =
    ownTypes &&
    (await specFitsFooExample((await tree.read(resource.entry.path ?? CREATE_API_PATHS.typesFile(names))) ?? '', kind));
  if (externalKind) {
    const types = await requireExternalTypes(tree, resource.entry, names);
    target.namespaced = types.namespaced;
    // A CRD that requires spec (cert-manager's Issuer) rejects the tests' object without one, and so does tsc.
    if (types.specRequired) target.sampleFields = 'spec: {},';
  }

  const wanted = await askWebhookKinds(options, context, sameKind, version);
  if (options.defaultingPath !== undefined && !wanted.defaulting)
    throw new UsageError(
      '--defaulting-path names the path of a defaulting webhook',
      'pass --defaulting too, or leave --defaulting-path out',
    );
  if (options.validationPath !== undefined && !wanted.validation)
    throw new UsageError(
      '--validation-path names the path of a validating webhook',
      'pass --programmatic-validation too, or leave --validation-path out',
    );
  if (wanted.conversion && !ownTypes) {
    throw new KopError(
      `${kind} ${names.apiVersion} is ${origin === 'builtin' ? 'a built-in kind' : 'an external kind'}: only a kind whose CRD this project writes can convert between versions; kop create webhook wrote nothing`,
      'leave --conversion out (defaulting and validation work for it)',
    );
  }
  const spokes = wanted.conversion ? await resolveSpokes(options, context, tree, sameKind, names) : [];
  const existing = resource.entry.webhooks ?? {};
  const force = options.force ?? false;
  if (!force) refuseExisting(existing, wanted, spokes, names);
  const paths = {
    defaulting: wanted.defaulting
      ? (options.defaultingPath ?? (force ? undefined : existing.defaultingPath))
      : existing.defaultingPath,
    validation: wanted.validation
      ? (options.validationPath ?? (force ? undefined : existing.validationPath))
      : existing.validationPath,
  };
  refusePathClashes(project, resource.entry, names, paths);
  if (wanted.conversion) await markHubAsStorageVersion(tree, sameKind, names);

  // A kind whose name another group's kind had first gets group-qualified class and webhook names (webhookNamePrefix).
  const prefix = webhookNamePrefix(resource.entry, project);
  const qualifiedGroup = prefix === '' ? undefined : resource.entry.group;
  const data: TemplateData = {
    ...names,
    ...target.imports,
    origin,
    ownTypes,
    fooExample,
    namespaced: target.namespaced,
    labelPrefix: project.domain,
    sampleFields: target.sampleFields,
    defaultingPath: paths.defaulting ?? admissionWebhookPath('mutate', names),
    validationPath: paths.validation ?? admissionWebhookPath('validate', names),
    customDefaultingPath: paths.defaulting,
    customValidationPath: paths.validation,
    markerGroup: names.fullGroup === '' ? '""' : names.fullGroup,
    defaultingName: admissionWebhookName('mutate', names, qualifiedGroup),
    validationName: admissionWebhookName('validate', names, qualifiedGroup),
    licenseHeaderTs: await loadBoilerplate(tree, 'x.ts'),
    licenseHeaderYaml: await loadBoilerplate(tree, 'x.yaml'),
  };

  // A kind whose types live in this project (its own, or an imported CRD's) gets the one fixture
  // its tests share, valid<Kind>() (project/kind-fixture.ts); a built-in kind's tests carry a sample.
  if (ownTypes || externalKind) {
    const typesFile = resource.entry.path ?? CREATE_API_PATHS.typesFile(names);
    const { file } = await scaffoldKindFixture(
      tree,
      { ...names, namespaced: target.namespaced, typesFile },
      typeof data.licenseHeaderTs === 'string' ? data.licenseHeaderTs : '',
    );
    data.fixtureFunction = `valid${kind}`;
    data.fixtureModule = moduleFrom(`test/webhooks/${names.group}/${names.version}/x.test.ts`, file);
  } else {
    data.fixtureFunction = false;
  }

  // Shared by every webhook of the project and the user's to edit: written once, never overwritten.
  for (const file of await renderTemplateDir('webhook/common', data))
    await tree.scaffold(file.path, file.content, { ifExists: 'skip' });

  const registrations: WebhookRegistration[] = [];
  if (wanted.defaulting) {
    await scaffoldAll(tree, ['webhook/defaulting', 'webhook/defaulting-test'], data, force);
    registrations.push(webhookRegistration(names, prefix, 'defaulting'));
  }
  if (wanted.validation) {
    await scaffoldAll(tree, ['webhook/validation', 'webhook/validation-test'], data, force);
    registrations.push(webhookRegistration(names, prefix, 'validation'));
  }
  for (const spoke of spokes) {
    const spokeData = { ...data, spoke, spokeUpper: upperFirst(spoke) };
    await scaffoldAll(tree, ['webhook/conversion', 'webhook/conversion-test'], spokeData, force);
    registrations.push(webhookRegistration(names, prefix, { spoke }));
  }
  await insertWebhookWiring(tree, registrations);

  resource.entry.webhooks = recordWebhooks(existing, wanted, spokes, paths);
  // A webhook replaces the no-op conversion an earlier `create api --no-conversion` recorded (a CRD has one strategy).
  if (wanted.conversion)
    for (const entry of sameKind) if (entry.api?.conversion !== undefined) delete entry.api.conversion;
  if (!resource.recorded) project.resources.push(resource.entry);

  return {
    next:
      'write the webhook logic in src/webhooks/, then run `npm run generate` for config/webhook/manifests.yaml' +
      (wanted.conversion ? ' and the conversion patch in config/crd/patches' : '') +
      '. In a cluster the webhooks need cert-manager for their certificate (config/certmanager).' +
      (externalKind && !(external.module !== undefined && isGoModule(external.module))
        ? ` ${kind}'s CRD belongs to another project: put a copy in test/crds/ so the webhook tests (test/webhooks/environment.ts) can install it.`
        : ''),
  };
}

interface WebhookTarget {
  /** The kind, resolved once (see project/resource-model.ts): its PROJECT entry records the webhooks. */
  resource: Resource;
  names: ResourceNames;
  namespaced: boolean;
  /** Where the webhook files import the kind's descriptor and type from. */
  imports: { descriptor: string; descriptorModule: string; descriptorTestModule: string; typesModule: string };
  /** The fields of an object the tests create, after metadata (TypeScript object-literal members). */
  sampleFields: string;
}

/**
 * Finds the kind a webhook is for (resolveResource: one of this project's, an external one
 * `kop import crd` recorded, or a built-in kind of kop/runtime's descriptors) and what its
 * webhook files import; a kind that is none of these, or lacks the version, is an error.
 */
function resolveTarget(
  project: ProjectFile,
  gvk: { group: string; version: string; kind: string },
  options: CreateWebhookOptions,
): WebhookTarget {
  const { group, version, kind } = gvk;
  const external =
    options.externalApiDomain !== undefined ||
    options.externalApiPath !== undefined ||
    options.externalApiModule !== undefined;
  const found = resolveResource(project, {
    ...gvk,
    externalDomain: options.externalApiDomain,
    externalOnly: external,
  });
  const ownGroup = fullGroup({ group, domain: project.domain });
  const type = found?.type;
  if (found !== undefined && type === 'own') {
    const { resource, versions } = found;
    if (resource === undefined) {
      const listed = versions.map((r) => r.version);
      throw new KopError(
        `${kind} ${ownGroup}/${version} is not in PROJECT (it has ${listed.join(', ')}); kop create webhook wrote nothing`,
        `pass one of --version ${listed.join(', ')}, or add the version with \`kop create api\``,
      );
    }
    const names = resourceNamesOf(resource.entry);
    const apiDir = `../../../../${posix.dirname(resource.entry.path ?? CREATE_API_PATHS.typesFile(names))}`;
    return {
      resource,
      names,
      namespaced: resource.entry.api?.namespaced ?? true,
      imports: kindImports(apiDir, names.kindLower, descriptorNameOf(kind)),
      sampleFields: 'spec: {},',
    };
  }
  if (found !== undefined && (type === 'imported' || type === 'package')) {
    const { resource, versions } = found;
    if (resource === undefined) {
      throw new KopError(
        `${kind} ${fullGroup(versions[0]!)}/${version} is not in PROJECT (kop import crd recorded ${versions.map((r) => r.version).join(', ')}); kop create webhook wrote nothing`,
        `pass one of --version ${versions.map((r) => r.version).join(', ')}, or import that version of the CRD with \`kop import crd\``,
      );
    }
    const names = resourceNamesOf(resource.entry);
    const apiDir = `../../../../${posix.dirname(resource.entry.path ?? CREATE_API_PATHS.typesFile(names))}`;
    return {
      resource,
      names,
      // kop import crd records no scope for an external kind; its types file says it (requireExternalTypes reads it).
      namespaced: true,
      imports: kindImports(apiDir, names.kindLower, descriptorNameOf(kind)),
      sampleFields: '',
    };
  }
  if (external) {
    const wantedExternal =
      options.externalApiDomain !== undefined ? `${group}.${options.externalApiDomain}` : undefined;
    throw new KopError(
      `${kind} ${wantedExternal ?? group}/${version} is not an external kind of this project; kop create webhook wrote nothing`,
      'import its CRD first (kop import crd <file or folder>, or --from-cluster <name>): the webhook is written against the imported types and typed client',
    );
  }
  const resource = found?.resource;
  if (resource !== undefined && resource.origin.type === 'builtin' && resource.origin.builtin !== undefined) {
    const builtin = resource.origin.builtin;
    if (!resource.recorded) {
      // create webhook has always recorded a new built-in kind with `path` before `core`.
      const { core, path, ...rest } = resource.entry;
      resource.entry = { ...rest, path, core };
    }
    const names: ResourceNames = {
      group: resource.group,
      version,
      kind,
      kindLower: singularOf(kind),
      plural: builtin.type.resource,
      fullGroup: resource.fullGroup,
      apiVersion: resource.fullGroup === '' ? version : `${resource.fullGroup}/${version}`,
      sampleName: `${resource.group}_${version}_${singularOf(kind)}`,
      roleStem: singularOf(kind),
    };
    return {
      resource: { ...resource, versions: [resource.entry] },
      names,
      namespaced: builtin.type.namespaced,
      imports: {
        descriptor: builtin.descriptor,
        descriptorModule: 'kop/runtime/builtin',
        descriptorTestModule: 'kop/runtime/builtin',
        typesModule: 'kop/api',
      },
      sampleFields: BUILTIN_SAMPLES[kind] ?? '',
    };
  }
  throw new KopError(
    `${kind} ${ownGroup}/${version} is not in PROJECT, and ${kind} of group ${group} is no external kind and no built-in kind kop/runtime has a descriptor for; kop create webhook wrote nothing`,
    `add the kind first: kop create api --group ${group} --version ${version} --kind ${kind} (or import its CRD with kop import crd)`,
  );
}

/** Module specifiers of a kind's typed client and types, from the webhook files (four folders below the root). */
function kindImports(apiDir: string, kindLower: string, descriptor: string): WebhookTarget['imports'] {
  return {
    descriptor,
    descriptorModule: `${apiDir}/${kindLower}.client.js`,
    descriptorTestModule: `${apiDir}/${kindLower}.client.js`,
    typesModule: `${apiDir}/${kindLower}.types.js`,
  };
}

/**
 * What a webhook test puts in a built-in object besides apiVersion, kind and metadata: the least
 * the apiserver admits. Keyed by kop/runtime's built-in kinds; a kind without an entry gets none.
 */
const BUILTIN_SAMPLES: Readonly<Record<string, string>> = {
  ConfigMap: "data: { key: 'value' },",
  Secret: "stringData: { key: 'value' },",
  Service: 'spec: { ports: [{ port: 80 }] },',
  Pod: "spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },",
  PersistentVolumeClaim: "spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },",
  Deployment:
    "spec: { selector: { matchLabels: { app: 'sample' } }, template: { metadata: { labels: { app: 'sample' } }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } },",
  StatefulSet:
    "spec: { serviceName: 'sample', selector: { matchLabels: { app: 'sample' } }, template: { metadata: { labels: { app: 'sample' } }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } },",
  Job: "spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } },",
  CronJob:
    "spec: { schedule: '0 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } } } },",
  Lease: 'spec: {},',
  Event:
    "eventTime: new Date().toISOString(), reportingController: 'example.com/sample', reportingInstance: 'sample', action: 'Sample', reason: 'Sample', type: 'Normal',",
};

/** `--defaulting-path` / `--validation-path`: URL paths of their own, never the same one. */
function checkPathFlags(options: CreateWebhookOptions): void {
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
function refusePathClashes(
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

/**
 * An external kind's webhooks import its types and the typed client `kop generate` writes beside
 * them. Returns whether the kind is namespaced, which its types say with the resource marker
 * `kop import crd` wrote (`scope=Cluster` for a cluster-scoped kind), as for `kop generate`, and
 * whether the kind's interface declares `spec` required (no `?`).
 */
async function requireExternalTypes(
  tree: VirtualTree,
  resource: ProjectResource,
  names: ResourceNames,
): Promise<{ namespaced: boolean; specRequired: boolean }> {
  const typesFile = resource.path ?? CREATE_API_PATHS.typesFile(names);
  const text = await tree.read(typesFile);
  if (text === undefined) {
    throw new KopError(
      `${names.kind} ${names.apiVersion} is recorded as external but has no types file (${typesFile}); kop create webhook wrote nothing`,
      'import its CRD again with `kop import crd`',
    );
  }
  const kindInterface = new RegExp(`^export interface ${names.kind} \\{\\n([^]*?)^\\}`, 'm').exec(text)?.[1] ?? '';
  return {
    namespaced: !/^[ \t]*(?:\*|\/\/)[ \t]*\+kubebuilder:resource:[^\n]*\bscope=Cluster\b/m.test(text),
    specRequired: /^[ \t]*spec:/m.test(kindInterface),
  };
}

interface WebhookKinds {
  defaulting: boolean;
  validation: boolean;
  conversion: boolean;
}

/** The webhook kinds from the flags; on a terminal, the ones not given are asked for. */
async function askWebhookKinds(
  options: CreateWebhookOptions,
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

async function requireTypes(tree: VirtualTree, resource: ProjectResource, names: ResourceNames): Promise<void> {
  const typesFile = resource.path ?? CREATE_API_PATHS.typesFile(names);
  // Types the user wrote by hand (`create api --resource=false` records no api) serve as well as scaffolded ones.
  if (!(await tree.exists(typesFile))) {
    throw new KopError(
      `${names.kind} ${names.apiVersion} has no types file (${typesFile}): its webhooks need the types; kop create webhook wrote nothing`,
      `scaffold them with \`kop create api --group ${names.group} --version ${names.version} --kind ${names.kind} --resource\``,
    );
  }
}

/** Names the webhooks that exist already, with the files --force would overwrite. */
function refuseExisting(
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
async function markHubAsStorageVersion(
  tree: VirtualTree,
  sameKind: readonly ProjectResource[],
  hub: ResourceNames,
): Promise<void> {
  for (const resource of sameKind) {
    if (resource.version === hub.version || !resource.api) continue;
    const names = resourceNamesOf(resource);
    const typesFile = resource.path ?? CREATE_API_PATHS.typesFile(names);
    const markers = (await declarationMarkers((await tree.read(typesFile)) ?? '', typesFile, names.kind)) ?? [];
    const storage = markers.find((m) => isMarker(m.text, STORAGE_VERSION_MARKER));
    if (storage !== undefined) {
      throw new KopError(
        `${hub.kind} ${resource.version} is marked ${STORAGE_VERSION_MARKER} (${formatLocation(storage.location)}), but the hub of a conversion is the storage version`,
        `pass --version ${resource.version} to make it the hub, or move the marker to ${hub.version}'s ${hub.kind} type`,
      );
    }
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

/** True when a marker line is `marker`, or `marker` with arguments. */
function isMarker(text: string, marker: string): boolean {
  return text === marker || text.startsWith(`${marker}:`) || text.startsWith(`${marker}=`);
}

async function scaffoldAll(
  tree: VirtualTree,
  templateDirs: readonly string[],
  data: TemplateData,
  force: boolean,
): Promise<void> {
  for (const dir of templateDirs) {
    for (const file of await renderTemplateDir(dir, data)) await tree.scaffold(file.path, file.content, { force });
  }
}

/** The PROJECT entry after this run: what was there plus what was added, in Kubebuilder's key order. */
function recordWebhooks(
  existing: ProjectWebhooks,
  wanted: WebhookKinds,
  spokes: readonly string[],
  paths: { defaulting?: string; validation?: string },
): ProjectWebhooks {
  const spoke = [...new Set([...(existing.spoke ?? []), ...spokes])].sort();
  return {
    ...(existing.conversion || wanted.conversion ? { conversion: true } : {}),
    ...(existing.defaulting || wanted.defaulting ? { defaulting: true } : {}),
    ...(paths.defaulting !== undefined ? { defaultingPath: paths.defaulting } : {}),
    ...(spoke.length > 0 ? { spoke } : {}),
    ...(existing.validation || wanted.validation ? { validation: true } : {}),
    ...(paths.validation !== undefined ? { validationPath: paths.validation } : {}),
    webhookVersion: 'v1',
  };
}
