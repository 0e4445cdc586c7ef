import { type Context, askChecked, requireValid, KopError, UsageError } from '../base/index.js';
import {
  runCommandPipeline,
  runPhases,
  type CommandStep,
  type PhaseHandlers,
  type ProjectFile,
  type ProjectResource,
  type ProjectWebhooks,
  CREATE_API_PATHS,
  checkDomain,
  checkGroup,
  checkKind,
  checkVersion,
  admissionWebhookName,
  admissionWebhookPath,
  insertWebhookWiring,
  upperFirst,
  webhookNamePrefix,
  webhookRegistration,
  type WebhookRegistration,
  moduleFrom,
  scaffoldKindFixture,
} from '../project/index.js';
import { recordFlags } from '../project/command-flags.js';
import {
  type FlushResult,
  loadBoilerplate,
  renderTemplateDir,
  type TemplateFolder,
  type VirtualTree,
} from '../scaffold/index.js';
import {
  CONVERSION_TEMPLATES,
  CONVERSION_TEST_TEMPLATES,
  DEFAULTING_TEMPLATES,
  DEFAULTING_TEST_TEMPLATES,
  VALIDATION_TEMPLATES,
  VALIDATION_TEST_TEMPLATES,
  WEBHOOK_COMMON_TEMPLATES,
  type WebhookFixtureTemplateData,
  type WebhookTemplateData,
} from './webhook-template-data.js';
import {
  checkExternalApiFlags,
  isCrdSource,
  isGoModule,
  resolveExternalKind,
  type ExternalApiFlags,
} from '../import/index.js';
import { CREATE_WEBHOOK_FLAGS, type CreateWebhookFlags } from './create-webhook-flags.js';
import { specFitsFooExample } from './spec-example.js';
import {
  askWebhookKinds,
  checkPathFlags,
  markHubAsStorageVersion,
  refuseExisting,
  refusePathClashes,
  resolveSpokes,
  type WebhookKinds,
} from './webhook-checks.js';
import { requireExternalTypes, requireTypes, resolveTarget, type WebhookTarget } from './webhook-target.js';

/** `kop create webhook`'s options: one field per flag of CREATE_WEBHOOK_FLAGS (create-webhook-flags.ts), where each is declared once. */
export type CreateWebhookOptions = CreateWebhookFlags;

/** What the phases of one `kop create webhook` run share; each phase fills in what the next need. */
export interface CreateWebhookStep extends CommandStep {
  readonly options: CreateWebhookOptions;
  /** bindFlags: the kind/version, given or asked. */
  gvk?: { group: string; version: string; kind: string };
  external?: ExternalApiFlags;
  /** resolve: the kind and what its webhook files import. */
  target?: WebhookTarget;
  /** preScaffold: what to scaffold and where it is served. */
  plan?: WebhookPlan;
  /** scaffold: what to do next, once written. */
  next?: string;
}

interface WebhookPlan {
  wanted: WebhookKinds;
  spokes: string[];
  existing: ProjectWebhooks;
  paths: { defaulting?: string; validation?: string };
  ownTypes: boolean;
  externalKind: boolean;
  fooExample: boolean;
}

/** The phases of `kop create webhook`. */
export const CREATE_WEBHOOK_PHASES: PhaseHandlers<CreateWebhookStep> = {
  async bindFlags(step) {
    const { options, context } = step;
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
    step.gvk = { group, version, kind };
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
    }
    step.external = external;
  },

  async resolve(step) {
    const { options, context, tree, project } = step;
    const gvk = step.gvk!;
    if (step.external!.module !== undefined) await resolveExternalKind(step.external!, gvk, tree, project, context);
    const target = resolveTarget(project, gvk, options);
    const { names } = target;
    if (options.plural !== undefined && options.plural !== names.plural) {
      throw new UsageError(
        `--plural ${options.plural}: PROJECT records ${gvk.kind}'s plural as ${names.plural}`,
        `leave --plural out, or pass --plural ${names.plural}`,
      );
    }
    step.target = target;
  },

  async preScaffold(step) {
    const { options, context, tree, project } = step;
    const target = step.target!;
    const { names, resource } = target;
    const { kind, version } = step.gvk!;
    const sameKind = resource.versions;
    const origin = resource.origin.type;
    const ownTypes = origin === 'own';
    const externalKind = origin === 'imported' || origin === 'package';
    if (ownTypes) await requireTypes(tree, resource.entry, names);
    // The spec.foo example only where the kind's spec still has create api's sample field; else the label example.
    const fooExample =
      ownTypes &&
      (await specFitsFooExample(
        (await tree.read(resource.entry.path ?? CREATE_API_PATHS.typesFile(names))) ?? '',
        kind,
      ));
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
    step.plan = { wanted, spokes, existing, paths, ownTypes, externalKind, fooExample };
  },

  async scaffold(step) {
    const { options, tree, project } = step;
    const target = step.target!;
    const { names, resource } = target;
    const { kind } = step.gvk!;
    const { wanted, spokes, paths, ownTypes, externalKind, fooExample } = step.plan!;
    const sameKind = resource.versions;
    const force = options.force ?? false;
    // A kind whose name another group's kind had first gets group-qualified class and webhook names (webhookNamePrefix).
    const prefix = webhookNamePrefix(resource.entry, project);
    const qualifiedGroup = prefix === '' ? undefined : resource.entry.group;
    const licenseHeaderTs = await loadBoilerplate(tree, 'x.ts');

    // A kind whose types live in this project (its own, or an imported CRD's) gets the one fixture
    // its tests share, valid<Kind>() (project/kind-fixture.ts); a built-in kind's tests carry a sample.
    let fixture: WebhookFixtureTemplateData = { fixtureFunction: false };
    if (ownTypes || externalKind) {
      const typesFile = resource.entry.path ?? CREATE_API_PATHS.typesFile(names);
      const { file } = await scaffoldKindFixture(
        tree,
        { ...names, namespaced: target.namespaced, typesFile },
        licenseHeaderTs,
      );
      fixture = {
        fixtureFunction: `valid${kind}`,
        fixtureModule: moduleFrom(`test/webhooks/${names.group}/${names.version}/x.test.ts`, file),
      };
    }

    const data: WebhookTemplateData = {
      group: names.group,
      version: names.version,
      kind: names.kind,
      kindLower: names.kindLower,
      plural: names.plural,
      fullGroup: names.fullGroup,
      apiVersion: names.apiVersion,
      ...target.imports,
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
      licenseHeaderTs,
      licenseHeaderYaml: await loadBoilerplate(tree, 'x.yaml'),
      ...fixture,
    };

    // Shared by every webhook of the project and the user's to edit: written once, never overwritten.
    for (const file of await renderTemplateDir(WEBHOOK_COMMON_TEMPLATES, data))
      await tree.scaffold(file.path, file.content, { ifExists: 'skip' });

    const registrations: WebhookRegistration[] = [];
    if (wanted.defaulting) {
      await scaffoldAll(tree, DEFAULTING_TEMPLATES, DEFAULTING_TEST_TEMPLATES, data, force);
      registrations.push(webhookRegistration(names, prefix, 'defaulting'));
    }
    if (wanted.validation) {
      await scaffoldAll(tree, VALIDATION_TEMPLATES, VALIDATION_TEST_TEMPLATES, data, force);
      registrations.push(webhookRegistration(names, prefix, 'validation'));
    }
    for (const spoke of spokes) {
      const spokeData = { ...data, spoke, spokeUpper: upperFirst(spoke) };
      await scaffoldAll(tree, CONVERSION_TEMPLATES, CONVERSION_TEST_TEMPLATES, spokeData, force);
      registrations.push(webhookRegistration(names, prefix, { spoke }));
    }
    await insertWebhookWiring(tree, registrations);

    recordWebhooks(resource.entry, wanted, spokes, paths);
    // A webhook replaces the no-op conversion an earlier `create api --no-conversion` recorded (a CRD has one strategy).
    if (wanted.conversion)
      for (const entry of sameKind) if (entry.api?.conversion !== undefined) delete entry.api.conversion;
    if (!resource.recorded) project.resources.push(resource.entry);

    const external = step.external!;
    step.next =
      'write the webhook logic in src/webhooks/, then run `npm run generate` for config/webhook/manifests.yaml' +
      (wanted.conversion ? ' and the conversion patch in config/crd/patches' : '') +
      '. In a cluster the webhooks need cert-manager for their certificate (config/certmanager).' +
      (externalKind && !(external.module !== undefined && isGoModule(external.module))
        ? ` ${kind}'s CRD belongs to another project: put a copy in test/crds/ so the webhook tests (test/webhooks/environment.ts) can install it.`
        : '');
  },

  postScaffold(step, result) {
    if (result.written) step.context.out.info(`\nNext: ${step.next!}`);
  },
};

/**
 * Adds webhooks to a kind/version of the project in `context.cwd`: a defaulter, a validator
 * and/or conversion functions per spoke version, each with a test through a real apiserver;
 * the shared wiring (src/webhooks/setup.ts, the call in src/main.ts, config/webhook,
 * config/certmanager, config/network-policy and config/default's patch and replacements) the
 * first time; and the PROJECT entry. Webhooks the kind already has are refused unless `force`.
 * Nothing is written when any step fails.
 */
export async function runCreateWebhook(options: CreateWebhookOptions, context: Context): Promise<FlushResult> {
  return runCommandPipeline(context, (base) => ({ ...base, options }), [CREATE_WEBHOOK_PHASES]);
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
  const step: CreateWebhookStep = { context, tree, project, options };
  await runPhases(step, [CREATE_WEBHOOK_PHASES]);
  return { next: step.next! };
}

/** Renders a webhook's folder and its test's. */
async function scaffoldAll<T extends object, U extends object>(
  tree: VirtualTree,
  folder: TemplateFolder<T>,
  testFolder: TemplateFolder<U>,
  data: T & U,
  force: boolean,
): Promise<void> {
  for (const file of await renderTemplateDir(folder, data)) await tree.scaffold(file.path, file.content, { force });
  for (const file of await renderTemplateDir(testFolder, data)) await tree.scaffold(file.path, file.content, { force });
}

/**
 * Records the run in the kind's PROJECT entry through the flags' own `record`
 * (create-webhook-flags.ts): what was there plus what was added, in Kubebuilder's key order.
 */
function recordWebhooks(
  entry: ProjectResource,
  wanted: WebhookKinds,
  spokes: readonly string[],
  paths: { defaulting?: string; validation?: string },
): void {
  const existing = entry.webhooks ?? {};
  entry.webhooks = { ...existing };
  recordFlags(CREATE_WEBHOOK_FLAGS, entry, {
    defaulting: existing.defaulting === true || wanted.defaulting,
    programmaticValidation: existing.validation === true || wanted.validation,
    conversion: existing.conversion === true || wanted.conversion,
    spoke: [...new Set([...(existing.spoke ?? []), ...spokes])].sort(),
    defaultingPath: paths.defaulting,
    validationPath: paths.validation,
  });
  // Kubebuilder writes the keys in alphabetical order, webhookVersion last.
  const { webhookVersion: _version, ...recorded } = entry.webhooks;
  entry.webhooks = {
    ...Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    webhookVersion: 'v1',
  };
}
