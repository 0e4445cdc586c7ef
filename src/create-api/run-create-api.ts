import * as path from 'node:path';
import { askChecked, askYesNo, type Context, KopError, UsageError } from '../base/index.js';
import {
  fullGroup,
  loadProjectFile,
  saveProjectFile,
  type ProjectFile,
  type ProjectResource,
  controllerGroupOf,
  controllerNamesOf,
  controllersOf,
  CREATE_API_PATHS,
  insertControllerWiring,
  insertResourceWiring,
  placeControllerFile,
  resourceNamesOf,
  roleStemOf,
  type ControllerNames,
  type ResourceNames,
  checkControllerName,
  checkGroup,
  checkKind,
  checkVersion,
  descriptorNameOf,
  isDns1123Label,
  pluralOf,
  requireValid,
  singularOf,
  type NameCheck,
  describeBuiltinKinds,
  type BuiltinKind,
  resolveResource,
  type Resource,
  moduleFrom,
  readKindShape,
  scaffoldKindFixture,
  type FixtureTarget,
  type KindShape,
} from '../project/index.js';
import {
  flushTree,
  type FlushResult,
  loadBoilerplate,
  renderTemplateDir,
  type TemplateData,
  VirtualTree,
} from '../scaffold/index.js';
import { declarationMarkers } from '../markers/index.js';
import { builtinSampleLiteral } from './builtin-samples.js';
import { stageCreateWebhook } from '../create-webhook/index.js';
import type { CreateApiFlags } from './create-api-flags.js';
import {
  checkExternalApiFlags,
  hasExternalApiFlags,
  isCrdSource,
  resolveExternalKind,
  type ExternalApiFlags,
} from '../import/index.js';

/** `kop create api`'s options: one field per flag of CREATE_API_FLAGS (create-api-flags.ts), where each is declared once. */
export type CreateApiOptions = CreateApiFlags;

/**
 * What a plugin of `create api` (src/plugins, e.g. deploy-image) changes in a run: the template
 * folders of the kind's files, extra template data, and a step that stages more files and
 * PROJECT keys once create api's own are staged (before anything is written).
 */
export interface CreateApiExtension {
  /** Template folders rendered instead of create api's own, by the name of the one they replace. */
  templates?: Partial<Record<'api/resource' | 'api/controller' | 'api/controller-test', string>>;
  /** Template data added to create api's (names, license headers...), or made from the kind's names once they are known (asked or given). */
  data?: TemplateData | ((names: ResourceNames) => TemplateData);
  /** Runs after the kind's files and its PROJECT entry are staged, before PROJECT is saved. */
  extend?(step: { tree: VirtualTree; project: ProjectFile; data: TemplateData }): Promise<void>;
}

/**
 * Names the scaffolded and generated files import or use as types (kop/api, kop/runtime, vitest,
 * TypeScript's own): a kind of that name would clash with them, and the project would not compile.
 * test/unit/reserved-kinds.test.ts checks that every such name in the templates is listed, and that
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

const checkKindName: NameCheck = (value) => {
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
function checkDerivedNames(
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

const checkPlural: NameCheck = (value) =>
  isDns1123Label(value)
    ? true
    : `invalid plural ${JSON.stringify(value)}: a plural must be lower case — letters, digits and '-', starting and ending with a letter or digit, at most 63 characters (e.g. "memcacheds")`;

/**
 * Adds a kind (or a new version of one) to the project in `context.cwd`: records it in
 * PROJECT, scaffolds its types, group-version file and sample, and a reconciler wired
 * into src/main.ts. With `--no-resource`, a reconciler alone: for one of the project's kinds,
 * or for a kind it does not own (built into Kubernetes, imported, or named by the
 * --external-api-* flags); `--controller-name` adds another reconciler of a kind. Nothing is
 * written when any step fails; `--dry-run` prints the plan.
 */
export async function runCreateApi(
  options: CreateApiOptions,
  context: Context,
  extension: CreateApiExtension = {},
): Promise<FlushResult> {
  const tree = new VirtualTree(context.cwd);
  const project = await loadProjectFile(tree);
  const external: ExternalApiFlags = {
    path: options.externalApiPath,
    domain: options.externalApiDomain,
    module: options.externalApiModule,
  };
  checkExternalApiFlags(external);
  if (options.controllerName !== undefined) {
    requireValid(checkControllerName, options.controllerName, '--controller-name');
    if (options.controller === false)
      throw new UsageError(
        '--controller-name names a reconciler, but --controller is off',
        'leave out --no-controller (or --controller=false)',
      );
  }

  // Kubebuilder writes the core group as `core` or "" (`--group ""`).
  const givenGroup = options.group === '' ? 'core' : options.group;
  const group = await askChecked(context, givenGroup, checkGroup, {
    flag: '--group',
    type: 'text',
    message: 'API group (the part before the domain, e.g. cache)',
  });
  const version = await askChecked(context, options.version, checkVersion, {
    flag: '--version',
    type: 'text',
    message: 'API version (e.g. v1alpha1)',
    initial: 'v1alpha1',
  });
  const kind = await askChecked(context, options.kind, checkKindName, {
    flag: '--kind',
    type: 'text',
    message: 'Kind (UpperCamelCase, e.g. Memcached)',
  });
  const fullGroupName = fullGroup({ group, domain: project.domain });

  const sameKind = project.resources.filter((r) => r.kind === kind && fullGroup(r) === fullGroupName);
  if (hasExternalApiFlags(external)) {
    if (options.resource === true)
      throw new UsageError(
        '--external-api-path is for a kind another project owns: its types are not scaffolded here',
        'pass --no-resource (or --resource=false)',
      );
    return createUnownedController(options, context, tree, project, { group, version, kind, external });
  }
  const resource = await askYesNo(context, options.resource, {
    flag: '--resource',
    type: 'confirm',
    message: `Create the ${kind} API types?`,
    initial: true,
  });
  if (!resource && !sameKind.some((r) => r.version === version && r.api)) {
    // Not a kind of this project: one imported from another project, or a built-in one.
    const found = resolveResource(project, { group, version, kind })?.resource;
    const origin = found?.origin;
    if (
      found !== undefined &&
      ((origin?.type === 'imported' && origin.path?.startsWith('api/')) ||
        (origin?.type === 'builtin' && origin.builtin !== undefined))
    )
      return createUnownedController(options, context, tree, project, { group, version, kind, external, found });
  }

  const existing = sameKind.find((r) => r.version === version);
  const plural = resolvePlural(options.plural, kind, sameKind);
  checkDerivedNames(kind, plural, fullGroupName, options.plural !== undefined, { group, version });
  const namespaced = resolveScope(options.namespaced, kind, sameKind);
  checkConflicts(project, { group: fullGroupName, kind, plural });

  // In a multigroup project each group has its own folder of reconcilers: the same kind in another group is no clash.
  const controllerOwner =
    project.multigroup === true
      ? undefined
      : project.resources.find((r) => r.controller && r.kind === kind && fullGroup(r) !== fullGroupName);
  const kindHasController = sameKind.some((r) => controllersOf(r, project).length > 0);
  const controller =
    options.controllerName !== undefined && options.controller === undefined
      ? true
      : await askYesNo(context, options.controller, {
          flag: '--controller',
          type: 'confirm',
          message: `Create a reconciler for ${kind}?`,
          // One reconciler per kind: a new version of a kind that has one does not get a second.
          initial: !kindHasController && controllerOwner === undefined,
        });
  if (!resource && !controller) {
    throw new UsageError(
      'nothing to create: both --resource and --controller are off',
      'pass --resource, --controller, or both',
    );
  }
  const conversion = await chooseConversion(options, context, tree, { group, version, kind, resource, sameKind });
  const controllerNames = controllerNamesOf(kind, options.controllerName, controllerGroupOf(project, group));
  if (options.ssa && !resource) {
    throw new UsageError(
      '--ssa is recorded with the API types, so it needs --resource',
      'pass --resource with --ssa; a later --no-resource --controller run picks the apply reconciler from PROJECT',
    );
  }
  // Once a kind version applies, it keeps doing so (as in Kubebuilder, --ssa cannot be undone by leaving it out).
  const ssa = options.ssa === true || existing?.api?.ssa === true;

  if (existing && !options.force) {
    // Name the files --force would overwrite, so the user sees what is at stake.
    const existingNames = resourceNamesOf(existing, project.resources);
    const present = async (files: string[]) => {
      const found = [];
      for (const file of files) if (await tree.existsOnDisk(file)) found.push(file);
      return found.length > 0 ? ` (${found.join(', ')})` : '';
    };
    const controllerFiles = [
      CREATE_API_PATHS.namedControllerFile(controllerNames),
      CREATE_API_PATHS.namedControllerTestFile(controllerNames),
    ];
    if (resource && existing.api) {
      const files = await present([
        CREATE_API_PATHS.typesFile(existingNames),
        CREATE_API_PATHS.sampleFile(existingNames),
        ...(controller ? controllerFiles : []),
      ]);
      throw new KopError(
        `${kind} ${fullGroupName}/${version} already exists in PROJECT${files}; kop create api wrote nothing`,
        'pass --force to scaffold its files again (overwriting them), or pick another --version to add a version',
      );
    }
    if (controller && controllersOf(existing, project).some((c) => c.stem === controllerNames.stem)) {
      throw new KopError(
        `${kind} ${fullGroupName}/${version} already has ${options.controllerName === undefined ? 'a reconciler' : `a reconciler named ${controllerNames.name}`}${await present(controllerFiles)}; kop create api wrote nothing`,
        options.controllerName === undefined
          ? 'pass --force to scaffold it again'
          : 'pick another --controller-name, or pass --force to scaffold it again',
      );
    }
  }
  if (controller && controllerOwner && options.controllerName === undefined) {
    throw new KopError(
      `a reconciler for kind ${kind} of group ${fullGroup(controllerOwner)} already uses ${CREATE_API_PATHS.namedControllerFile(controllerNames)}`,
      'pass --controller-name to give this reconciler another name, pass --no-controller, or make the project multigroup (`kop edit --multigroup`) so that each group has its own reconcilers',
    );
  }
  if (controller)
    checkControllerClash(project, controllerNames, { kind, group: fullGroupName, version }, options.force ?? false);

  const names: ResourceNames = {
    group,
    version,
    kind,
    kindLower: singularOf(kind),
    plural,
    fullGroup: fullGroupName,
    apiVersion: `${fullGroupName}/${version}`,
    sampleName: `${group}_${version}_${singularOf(kind)}`,
    roleStem: roleStemOf({ group, kind, domain: project.domain }, project.resources),
  };
  const roleName = (level: string) => `${names.roleStem.replace(/_/g, '-')}-${level}-role`;
  const data: TemplateData = {
    ...names,
    ...controllerTemplateData(controllerNames, kind, fullGroupName, namespaced),
    projectName: project.projectName,
    sampleObjectName: `${singularOf(kind)}-sample`,
    descriptor: descriptorNameOf(kind),
    namespaced,
    resourceMarker: resourceMarker(names, namespaced),
    pluralStatus: `${plural}/status`,
    roleNameAdmin: roleName('admin'),
    roleNameEditor: roleName('editor'),
    roleNameViewer: roleName('viewer'),
    licenseHeaderTs: await loadBoilerplate(tree, 'x.ts'),
    licenseHeaderYaml: await loadBoilerplate(tree, 'x.yaml'),
    ...(typeof extension.data === 'function' ? extension.data(names) : extension.data),
  };
  const templates = (
    dir:
      | 'api/resource'
      | 'api/controller'
      | 'api/controller-test'
      | 'api/controller-ssa/controller'
      | 'api/controller-ssa/test',
  ) => (extension.templates as Partial<Record<string, string>> | undefined)?.[dir] ?? dir;
  const force = options.force ?? false;

  if (resource) {
    for (const file of await renderTemplateDir('api/groupversion', data)) {
      // Shared by every kind of the version and the user's to extend: never overwritten.
      await tree.scaffold(file.path, file.content, { ifExists: 'skip' });
    }
    for (const file of await renderTemplateDir(templates('api/resource'), data))
      await tree.scaffold(file.path, file.content, { force });
    // One set of roles per kind: a new version of the kind keeps the roles it has.
    for (const file of await renderTemplateDir('api/roles', data))
      await tree.scaffold(file.path, file.content, { force, ifExists: 'skip' });
    await insertResourceWiring(tree, names, { sample: true });
  } else if (!(await tree.exists(CREATE_API_PATHS.typesFile(names)))) {
    throw new KopError(
      `there are no ${kind} types at ${CREATE_API_PATHS.typesFile(names)} for the reconciler to use, and ${kind} ${group}/${version} is neither a built-in kind nor one imported into PROJECT`,
      `pass --resource to scaffold them; for a built-in kind use its group (kop knows ${describeBuiltinKinds()}); for another operator's kind, kop import crd <file> first or pass --external-api-module <crd file>`,
    );
  }

  if (controller) {
    // With --ssa the reconciler writes with server-side apply (templates/api/controller-ssa).
    const controllerTemplate = ssa ? templates('api/controller-ssa/controller') : templates('api/controller');
    const testTemplate = ssa ? templates('api/controller-ssa/test') : templates('api/controller-test');
    const typesFile = existing?.path ?? CREATE_API_PATHS.typesFile(names);
    const kindData = await kindTestData(tree, { ...names, namespaced, typesFile }, data);
    await scaffoldController(
      tree,
      context,
      controllerTemplate,
      testTemplate,
      { ...data, ...kindData },
      force,
      controllerNames,
    );
    await insertControllerWiring(tree, controllerNames);
  }

  recordResource(project, {
    group,
    version,
    kind,
    plural,
    domain: project.domain,
    resource,
    controller: controller ? controllerNames : undefined,
    controllerNamed: options.controllerName !== undefined,
    namespaced,
    ssa,
    conversionNone: conversion?.strategy === 'None',
    path: CREATE_API_PATHS.typesFile(names),
  });
  // The conversion of the new version is the one `kop create webhook --conversion` scaffolds, staged in this plan.
  const webhookNext =
    conversion?.strategy === 'Webhook'
      ? (
          await stageCreateWebhook(
            { group, version: conversion.hub, kind, conversion: true, spoke: conversion.spokes },
            context,
            tree,
            project,
          )
        ).next
      : undefined;
  await extension.extend?.({ tree, project, data });
  saveProjectFile(tree, project);

  const result = await flushTree(tree, context);
  if (result.written) {
    context.out.info(
      `\nNext: edit ${CREATE_API_PATHS.typesFile(names)}, then run \`npm run generate\` for the CRD, RBAC role and typed client.`,
    );
  }
  const versions = [...new Set([...sameKind.map((r) => r.version), version])].sort();
  if (conversion?.strategy === 'Webhook') {
    if (result.written)
      context.out.info(
        `${kind} ${version} converts to and from ${conversion.hub}, the hub (the storage version). Next: ${webhookNext}`,
      );
  } else if (conversion?.strategy === 'None') {
    if (result.written)
      context.out.info(
        `${kind} ${versions.join(', ')} convert by apiVersion alone (the CRD's conversion strategy None): keep their schemas the same; \`kop generate\` warns when they differ.`,
      );
  }
  if (resource && versions.length > 1 && conversion?.strategy !== 'Webhook') {
    context.out.warn(
      `${kind} now has versions ${versions.join(', ')}: mark exactly one of them with +kubebuilder:storageversion (in the comments above its root type) before generating manifests`,
    );
    if (result.written && conversion === undefined) {
      const { hub, marked } = await storageVersionOf(tree, sameKind);
      context.out.info(
        `To convert between versions (hub ${hub}, ${marked ? 'the storage version' : 'which it marks as the storage version'}; the others spokes): kop create webhook --group ${group} --version ${hub} --kind ${kind} --conversion --spoke ${version}`,
      );
    }
  }
  return result;
}

/** How a new version of a kind converts: through the webhook of `hub` (with `spokes`), or by apiVersion alone. */
type ConversionChoice = { strategy: 'Webhook'; hub: string; spokes: string[] } | { strategy: 'None' };

/** The answers of the conversion question on a terminal. */
const CONVERSION_ANSWERS = { webhook: 'webhook', none: 'none', later: 'later' } as const;

/**
 * The conversion of a new version of a kind, from --conversion / --no-conversion or, on a
 * terminal, asked; undefined when there is none to make (a first version, --no-resource) or it
 * is left for later. Refuses the flags where they cannot apply, before anything is staged.
 */
async function chooseConversion(
  options: CreateApiOptions,
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
 * The version of a kind marked +kubebuilder:storageversion (found as `kop generate` finds it), or
 * else the first one the kind had: the hub a conversion would convert through.
 */
async function storageVersionOf(
  tree: VirtualTree,
  sameKind: readonly ProjectResource[],
): Promise<{ hub: string; marked: boolean }> {
  for (const resource of sameKind) {
    if (!resource.api) continue;
    const file = resource.path ?? CREATE_API_PATHS.typesFile(resourceNamesOf(resource));
    const markers = await declarationMarkers((await tree.read(file)) ?? '', file, resource.kind);
    if (markers?.some((m) => m.text === '+kubebuilder:storageversion')) return { hub: resource.version, marked: true };
  }
  return { hub: sameKind[0]!.version, marked: false };
}

/** The template values that name a reconciler; the kind's unnamed one keeps the finalizer it always had. */
function controllerTemplateData(
  controller: ControllerNames,
  kind: string,
  group: string,
  isolate: boolean,
): TemplateData {
  return {
    reconcilerClass: controller.className,
    controllerName: controller.name,
    controllerStem: controller.stem,
    // The reconciler's file under src/controllers/ without extension (`<group>/<stem>` in multigroup projects),
    // and the way back to the project root from it and from its test, for relative imports.
    controllerPath: `${controller.dir}${controller.stem}`,
    toRoot: controller.toRoot,
    // Each other reconciler holds its own finalizer, so one's cleanup never releases an object another still cleans up.
    finalizer: controller.className === `${kind}Reconciler` ? `${group}/finalizer` : `${group}/${controller.name}`,
    // Each reconciler's test runs in a namespace of its own (a DNS label: a multigroup folder's dots become dashes) on the one shared control
    // plane, so tests run at the same time (reconcilers of one kind, webhook tests) never see, or
    // hold by a finalizer, each other's objects.
    testNamespace: isolate
      ? `${`${controller.dir}${controller.stem}`
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-')
          .slice(0, 58)
          .replace(/-+$/, '')}-test`
      : false,
  };
}

/**
 * What the reconciler and its test need to know of the kind's types: whether it reports a Ready
 * condition (`hasConditions`, the one decision both reconcilers, update and server-side apply,
 * and their tests follow), and the fixture its test creates objects from, `valid<Kind>()`,
 * scaffolded once per kind (see project/kind-fixture.ts) when the project has a control plane for tests.
 */
async function kindTestData(tree: VirtualTree, target: FixtureTarget, data: TemplateData): Promise<TemplateData> {
  const typesText = (await tree.read(target.typesFile)) ?? '';
  // Ready goes into status.conditions through the status subresource (and the generated
  // statusApplyConfigurationFor<Kind> exists only with it): both must be there.
  const reportsReady = async (shape: KindShape | undefined) =>
    shape?.hasConditions === true &&
    ((await declarationMarkers(typesText, target.typesFile, target.kind)) ?? []).some(
      (m) => m.text === '+kubebuilder:subresource:status',
    );
  if (!(await tree.exists(CREATE_API_PATHS.globalSetup)))
    return { hasConditions: await reportsReady(await readKindShape(typesText, target.kind)) };
  const { file, shape } = await scaffoldKindFixture(
    tree,
    target,
    typeof data.licenseHeaderTs === 'string' ? data.licenseHeaderTs : '',
  );
  return {
    hasConditions: await reportsReady(shape),
    fixtureModule: moduleFrom(`test/controllers/${String(data.controllerPath)}.controller.test.ts`, file),
    fixtureFunction: `valid${target.kind}`,
  };
}

/** Renders a reconciler and, when the project has a control plane for tests, its test. */
async function scaffoldController(
  tree: VirtualTree,
  context: Context,
  template: string,
  testTemplate: string | undefined,
  data: TemplateData,
  force: boolean,
  controller: ControllerNames,
): Promise<void> {
  for (const file of await renderTemplateDir(template, data))
    await tree.scaffold(placeControllerFile(file.path, controller), file.content, { force });
  if (testTemplate === undefined) return;
  // The test reaches the control plane that test/global-setup.ts (from kop init) starts.
  if (await tree.exists(CREATE_API_PATHS.globalSetup)) {
    for (const file of await renderTemplateDir(testTemplate, data))
      await tree.scaffold(placeControllerFile(file.path, controller), file.content, { force });
  } else {
    context.out.warn(
      `no reconciler test: the project has no ${CREATE_API_PATHS.globalSetup} to start a control plane for it`,
    );
  }
}

/**
 * A reconciler's name, file and class are unique in the project: the manager refuses two
 * controllers of one name (they label the metrics), and main.ts imports every class by name.
 */
function checkControllerClash(
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

interface UnownedTarget {
  group: string;
  version: string;
  kind: string;
  external: ExternalApiFlags;
  /** The kind as PROJECT or kop/runtime has it (imported or built-in); undefined when the --external-api-* flags name it. */
  found?: Resource;
}

/**
 * A reconciler for a kind this project does not own: a built-in kind (kop/runtime's descriptor,
 * kop/api's type), a kind imported with `kop import crd`, or one the --external-api-* flags
 * name. No types, CRD, sample or roles: the kind's API belongs to Kubernetes or to another operator.
 */
async function createUnownedController(
  options: CreateApiOptions,
  context: Context,
  tree: VirtualTree,
  project: ProjectFile,
  target: UnownedTarget,
): Promise<FlushResult> {
  const { group, version, kind } = target;
  if (options.controller === false)
    throw new UsageError(
      `nothing to create: ${kind} is not an API of this project, so there are no types to scaffold, and --controller is off`,
      'pass --controller',
    );
  if (options.plural !== undefined) requireValid(checkPlural, options.plural, '--plural');

  let entry: ProjectResource;
  let modules: { descriptorModule: string; typesModule: string } | undefined;
  let builtin: BuiltinKind | undefined;
  let namespaced: boolean | undefined;
  if (hasExternalApiFlags(target.external)) {
    const resolved = await resolveExternalKind(
      target.external,
      { group, version, kind, plural: options.plural ?? pluralOf(kind) },
      tree,
      project,
      context,
    );
    entry = resolved.entry;
    modules = resolved;
  } else if (target.found?.origin.type === 'builtin') {
    builtin = target.found.origin.builtin!;
    namespaced = builtin.type.namespaced;
    entry = target.found.entry;
  } else {
    entry = target.found!.entry;
    const dir = path.posix.dirname(entry.path!);
    modules = {
      descriptorModule: `../../${dir}/${singularOf(kind)}.client.js`,
      typesModule: `../../${dir}/${singularOf(kind)}.types.js`,
    };
  }
  if (
    options.plural !== undefined &&
    entry.plural !== '' &&
    entry.plural !== options.plural &&
    target.found !== undefined
  ) {
    throw new UsageError(
      `--plural: ${kind} is served as "${entry.plural}"`,
      `pass --plural ${entry.plural} or leave it out`,
    );
  }
  const apiGroup = fullGroup(entry);
  const controllerNames = controllerNamesOf(kind, options.controllerName, controllerGroupOf(project, entry.group));
  if (modules) {
    // Both lookups give the modules as seen from src/controllers/; the reconciler may live a folder deeper.
    const fromController = (module: string) =>
      module.startsWith('../../') ? controllerNames.toRoot + module.slice('../../'.length) : module;
    modules = {
      descriptorModule: fromController(modules.descriptorModule),
      typesModule: fromController(modules.typesModule),
    };
  }
  const existing = controllersOf(entry, project).find((c) => c.stem === controllerNames.stem);
  if (existing && !options.force) {
    throw new KopError(
      `${kind} ${apiGroup || 'core'}/${version} already has ${options.controllerName === undefined ? 'a reconciler' : `a reconciler named ${controllerNames.name}`} (${CREATE_API_PATHS.namedControllerFile(controllerNames)}); kop create api wrote nothing`,
      options.controllerName === undefined
        ? 'pass --force to scaffold it again, or --controller-name for another one'
        : 'pick another --controller-name, or pass --force to scaffold it again',
    );
  }
  checkControllerClash(project, controllerNames, { kind, group: apiGroup, version }, options.force ?? false);

  const data: TemplateData = {
    ...controllerTemplateData(controllerNames, kind, apiGroup, false),
    kind,
    kindLower: singularOf(kind),
    apiVersion: apiGroup === '' ? version : `${apiGroup}/${version}`,
    plural: entry.plural,
    // controller-gen's spelling of the core group in RBAC markers.
    rbacGroup: apiGroup === '' ? 'core' : apiGroup,
    descriptor: builtin?.descriptor ?? descriptorNameOf(kind),
    builtin: builtin !== undefined,
    ownerNote: builtin
      ? 'a built-in kind of Kubernetes'
      : `a kind another project owns (${entry.module ?? entry.path})`,
    descriptorModule: modules?.descriptorModule ?? 'kop/runtime/builtin',
    typesModule: modules?.typesModule ?? 'kop/api',
    namespaced: namespaced ?? true,
    sampleObject: builtin ? builtinSampleLiteral(builtin.type, singularOf(kind)) : '',
    licenseHeaderTs: await loadBoilerplate(tree, 'x.ts'),
  };
  const force = options.force ?? false;
  // A test needs objects of the kind in the test control plane: only built-in kinds are always served there.
  await scaffoldController(
    tree,
    context,
    'api/controller-unowned',
    builtin ? 'api/controller-unowned-test' : undefined,
    data,
    force,
    controllerNames,
  );
  await insertControllerWiring(tree, controllerNames);

  addController(entry, controllerNames, options.controllerName !== undefined);
  if (!project.resources.includes(entry)) project.resources.push(entry);
  saveProjectFile(tree, project);

  const result = await flushTree(tree, context);
  if (result.written) {
    const next = builtin
      ? 'run `npm run generate` for the RBAC role, then `npm test`.'
      : `run \`npm run generate\` for the RBAC role${modules!.descriptorModule.startsWith('../') ? ' and the typed client' : ''}${target.external.module !== undefined && !isCrdSource(target.external.module) ? ', and `npm install` for the package' : ''}.`;
    context.out.info(
      `\nNext: write the reconcile logic in ${CREATE_API_PATHS.namedControllerFile(controllerNames)}, then ${next}`,
    );
  }
  return result;
}

/** A kind has one plural across its versions (the CRD has one); the default is the plural controller-gen gives it. */
function resolvePlural(given: string | undefined, kind: string, sameKind: readonly ProjectResource[]): string {
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
function resolveScope(given: boolean | undefined, kind: string, sameKind: readonly ProjectResource[]): boolean {
  const recorded = sameKind.find((r) => r.api)?.api?.namespaced;
  if (given !== undefined && recorded !== undefined && recorded !== given) {
    throw new UsageError(
      `--namespaced: ${kind} is already ${recorded ? 'namespaced' : 'cluster-scoped'} (one CRD serves every version)`,
    );
  }
  return given ?? recorded ?? true;
}

/** Two kinds of one group cannot share a plural: they would be the same CRD. */
function checkConflicts(project: ProjectFile, wanted: { group: string; kind: string; plural: string }): void {
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

/** `+kubebuilder:resource:` arguments, only where the defaults would be wrong. */
function resourceMarker(names: ResourceNames, namespaced: boolean): string {
  const args: string[] = [];
  if (names.plural !== pluralOf(names.kind)) args.push(`path=${names.plural}`);
  if (!namespaced) args.push('scope=Cluster');
  return args.join(',');
}

interface RecordedResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  domain: string;
  resource: boolean;
  /** The reconciler scaffolded, if any. */
  controller: ControllerNames | undefined;
  /** It was named with --controller-name. */
  controllerNamed: boolean;
  namespaced: boolean;
  ssa: boolean;
  /** `--no-conversion` on a new version: the CRD's conversion strategy None. */
  conversionNone: boolean;
  path: string;
}

/** Adds or updates the PROJECT entry of a kind/version, keeping what earlier runs recorded. */
function recordResource(project: ProjectFile, wanted: RecordedResource): void {
  const index = project.resources.findIndex(
    (r) => r.kind === wanted.kind && r.version === wanted.version && fullGroup(r) === fullGroup(wanted),
  );
  const previous: ProjectResource | undefined = index === -1 ? undefined : project.resources[index];
  const entry: ProjectResource = {
    ...previous,
    group: wanted.group,
    version: wanted.version,
    kind: wanted.kind,
    plural: wanted.plural,
    domain: wanted.domain,
  };
  if (wanted.resource) {
    entry.path = wanted.path;
    entry.api = {
      crdVersion: 'v1',
      namespaced: wanted.namespaced,
      ...(wanted.ssa ? { ssa: true } : {}),
      ...(wanted.conversionNone ? { conversion: 'None' as const } : {}),
    };
  }
  if (wanted.controller) addController(entry, wanted.controller, wanted.controllerNamed);
  if (index === -1) project.resources.push(entry);
  else project.resources[index] = entry;
}

/**
 * Records a reconciler as Kubebuilder does: the unnamed one as `controller: true` while the
 * kind has no named ones; a named one in `controllers:`, where an earlier `controller: true`
 * moves as the one named after the lower-case kind.
 */
function addController(entry: ProjectResource, controller: ControllerNames, named: boolean): void {
  // Only the names are recorded: the layout does not matter here.
  const list = controllersOf(entry);
  if (!named && (entry.controllers ?? []).length === 0) {
    entry.controller = true;
    return;
  }
  if (!list.some((c) => c.stem === controller.stem)) list.push(controller);
  // The name as given (the file stem): in a multigroup project the manager registers the kind's
  // unnamed one as <group>-<kind>, but PROJECT records it as Kubebuilder does, by the lower-case kind.
  entry.controllers = list.map((c) => ({ name: c.stem }));
  delete entry.controller;
}
