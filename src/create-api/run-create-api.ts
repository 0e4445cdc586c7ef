import { askChecked, askYesNo, type Context, KopError, UsageError } from '../base/index.js';
import {
  runCommandPipeline,
  type PhaseHandlers,
  fullGroup,
  controllerGroupOf,
  controllerNamesOf,
  controllersOf,
  CREATE_API_PATHS,
  insertControllerWiring,
  nameKindInShardingExample,
  insertResourceWiring,
  resourceNamesOf,
  roleStemOf,
  type ResourceNames,
  checkControllerName,
  checkGroup,
  checkVersion,
  descriptorNameOf,
  requireValid,
  singularOf,
  describeBuiltinKinds,
  resolveResource,
  GROUP_VERSION_TEMPLATES,
} from '../project/index.js';
import { type FlushResult, loadBoilerplate, renderTemplateDir } from '../scaffold/index.js';
import { stageCreateWebhook } from '../create-webhook/index.js';
import type { CreateApiFlags } from './create-api-flags.js';
import { checkExternalApiFlags, hasExternalApiFlags, type ExternalApiFlags } from '../import/index.js';
import {
  checkConflicts,
  checkControllerClash,
  checkDerivedNames,
  checkKindName,
  chooseConversion,
  resolvePlural,
  resolveScope,
} from './create-api-checks.js';
import { storageVersionOf } from '../markers/index.js';
import { ownedPlan, type ApiTemplate, type CreateApiStep } from './create-api-step.js';
import { API_TEMPLATES, ROLES_TEMPLATES, type ApiTemplateData } from './api-template-data.js';
import { recordResource } from './record-resource.js';
import {
  controllerTemplateData,
  kindFixture,
  kindReportsReady,
  resourceMarker,
  scaffoldController,
} from './scaffold-api.js';
import { UNOWNED_CONTROLLER_PHASES } from './unowned-controller.js';

export { RESERVED_KIND_NAMES, SCAFFOLD_IMPORTED_NAMES } from './create-api-checks.js';
export { ownedPlan, type CreateApiStep } from './create-api-step.js';

/** `kop create api`'s options: one field per flag of CREATE_API_FLAGS (create-api-flags.ts), where each is declared once. */
export type CreateApiOptions = CreateApiFlags;

/**
 * The phases of `kop create api`. After resolve, a kind this project does not own goes on with
 * {@link UNOWNED_CONTROLLER_PHASES} (a reconciler alone), one of its own with the phases here.
 */
export const CREATE_API_PHASES: PhaseHandlers<CreateApiStep> = {
  bindFlags(step) {
    const { options } = step;
    const external: ExternalApiFlags = {
      path: options.externalApiPath,
      domain: options.externalApiDomain,
      module: options.externalApiModule,
    };
    checkExternalApiFlags(external);
    step.external = external;
    if (options.controllerName !== undefined) {
      requireValid(checkControllerName, options.controllerName, '--controller-name');
      if (options.controller === false)
        throw new UsageError(
          '--controller-name names a reconciler, but --controller is off',
          'leave out --no-controller (or --controller=false)',
        );
    }
  },

  async resolve(step) {
    const { options, context, project } = step;
    const external = step.external!;
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
    step.gvk = { group, version, kind, fullGroup: fullGroupName };

    const sameKind = project.resources.filter((r) => r.kind === kind && fullGroup(r) === fullGroupName);
    step.sameKind = sameKind;
    if (hasExternalApiFlags(external)) {
      if (options.resource === true)
        throw new UsageError(
          '--external-api-path is for a kind another project owns: its types are not scaffolded here',
          'pass --no-resource (or --resource=false)',
        );
      step.unowned = { external };
      return;
    }
    const resource = await askYesNo(context, options.resource, {
      flag: '--resource',
      type: 'confirm',
      message: `Create the ${kind} API types?`,
      initial: true,
    });
    step.resource = resource;
    if (!resource && !sameKind.some((r) => r.version === version && r.api)) {
      // Not a kind of this project: one imported from another project, or a built-in one.
      const found = resolveResource(project, { group, version, kind })?.resource;
      const origin = found?.origin;
      if (
        found !== undefined &&
        ((origin?.type === 'imported' && origin.path?.startsWith('api/')) ||
          (origin?.type === 'builtin' && origin.builtin !== undefined))
      )
        step.unowned = { external, found };
    }
  },

  async preScaffold(step) {
    if (step.unowned) return UNOWNED_CONTROLLER_PHASES.preScaffold!(step);
    const { options, context, tree, project } = step;
    const { group, version, kind, fullGroup: fullGroupName } = step.gvk!;
    const sameKind = step.sameKind!;
    const resource = step.resource!;
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
    const data: ApiTemplateData = {
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
    };
    step.owned = { existing, plural, namespaced, controller, conversion, controllerNames, ssa, names, data };
  },

  async scaffold(step) {
    if (step.unowned) return UNOWNED_CONTROLLER_PHASES.scaffold!(step);
    const { options, context, tree, project } = step;
    const { group, version, kind } = step.gvk!;
    const resource = step.resource!;
    const plan = ownedPlan(step);
    const { existing, plural, namespaced, controller, conversion, controllerNames, ssa, names, data } = plan;
    const templates = <K extends ApiTemplate>(dir: K) => step.templates[dir] ?? API_TEMPLATES[dir];
    const force = options.force ?? false;

    if (resource) {
      for (const file of await renderTemplateDir(GROUP_VERSION_TEMPLATES, data)) {
        // Shared by every kind of the version and the user's to extend: never overwritten.
        await tree.scaffold(file.path, file.content, { ifExists: 'skip' });
      }
      for (const file of await renderTemplateDir(templates('api/resource'), data))
        await tree.scaffold(file.path, file.content, { force });
      // One set of roles per kind: a new version of the kind keeps the roles it has.
      for (const file of await renderTemplateDir(ROLES_TEMPLATES, data))
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
      const target = { ...names, namespaced, typesFile };
      const hasConditions = await kindReportsReady(tree, target);
      await scaffoldController(
        tree,
        context,
        { template: controllerTemplate, data: { ...data, hasConditions } },
        {
          template: testTemplate,
          data: async () => ({
            ...data,
            hasConditions,
            ...(await kindFixture(tree, target, data.licenseHeaderTs, data.controllerPath)),
          }),
        },
        force,
        controllerNames,
      );
      await insertControllerWiring(tree, controllerNames);
      await nameKindInShardingExample(tree, { group, version, kind, path: existing?.path });
    }

    // The values the run settled for its flags, each recorded by its declaration (create-api-flags.ts).
    recordResource(project, {
      values: {
        group,
        version,
        kind,
        plural,
        namespaced,
        resource,
        controller,
        controllerName: controller ? options.controllerName : undefined,
        conversion: conversion?.strategy === 'None' ? false : undefined,
        ssa,
      },
      domain: project.domain,
      path: CREATE_API_PATHS.typesFile(names),
    });
    // The conversion of the new version is the one `kop create webhook --conversion` scaffolds, staged in this plan.
    if (conversion?.strategy === 'Webhook') {
      plan.webhookNext = (
        await stageCreateWebhook(
          { group, version: conversion.hub, kind, conversion: true, spoke: conversion.spokes },
          context,
          tree,
          project,
        )
      ).next;
    }
  },

  async postScaffold(step, result) {
    if (step.unowned) return UNOWNED_CONTROLLER_PHASES.postScaffold!(step, result);
    await reportCreateApi(step, result);
  },
};

/** What to do next, and what a kind of several versions still needs. */
async function reportCreateApi(step: CreateApiStep, result: FlushResult): Promise<void> {
  const { context, tree } = step;
  const { group, version, kind } = step.gvk!;
  const sameKind = step.sameKind!;
  const { conversion, names, webhookNext } = ownedPlan(step);
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
  if (step.resource! && versions.length > 1 && conversion?.strategy !== 'Webhook') {
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
}

/**
 * Adds a kind (or a new version of one) to the project in `context.cwd`: records it in
 * PROJECT, scaffolds its types, group-version file and sample, and a reconciler wired
 * into src/main.ts. With `--no-resource`, a reconciler alone: for one of the project's kinds,
 * or for a kind it does not own (built into Kubernetes, imported, or named by the
 * --external-api-* flags); `--controller-name` adds another reconciler of a kind. Nothing is
 * written when any step fails; `--dry-run` prints the plan. `plugins` are the phase handlers of
 * the plugins `--plugins` named (src/plugins), run after create api's own in every phase.
 */
export async function runCreateApi(
  options: CreateApiOptions,
  context: Context,
  plugins: readonly PhaseHandlers<CreateApiStep>[] = [],
): Promise<FlushResult> {
  return runCommandPipeline(context, (base) => ({ ...base, options, templates: {} }), [CREATE_API_PHASES, ...plugins]);
}
