/**
 * `kop create api` for a kind this project does not own: a built-in kind (kop/runtime's
 * descriptor, kop/api's type), a kind imported with `kop import crd`, or one the
 * --external-api-* flags name. A reconciler alone: no types, CRD, sample or roles, since the
 * kind's API belongs to Kubernetes or to another operator. These are create api's phases when
 * resolve found such a kind.
 */
import { KopError, UsageError } from '../base/index.js';
import {
  fullGroup,
  type ProjectResource,
  requireValid,
  descriptorNameOf,
  pluralOf,
  singularOf,
  type PhaseHandlers,
  controllerGroupOf,
  controllerNamesOf,
  controllersOf,
  CREATE_API_PATHS,
  insertControllerWiring,
  type BuiltinKind,
  builtinSampleLiteral,
  kindModulesOf,
  type KindModules,
} from '../project/index.js';
import { loadBoilerplate } from '../scaffold/index.js';
import { hasExternalApiFlags, isCrdSource, resolveExternalKind } from '../import/index.js';
import { checkControllerClash, checkPlural } from './create-api-checks.js';
import type { CreateApiStep, UnownedPlan } from './create-api-step.js';
import { recordUnownedController } from './record-resource.js';
import { reconcilerTemplateData, scaffoldController } from './scaffold-api.js';
import {
  UNOWNED_CONTROLLER_TEMPLATES,
  UNOWNED_CONTROLLER_TEST_TEMPLATES,
  type UnownedApiTemplateData,
} from './api-template-data.js';

/** The plan of a run for a kind this project does not own, once preScaffold settled it. */
function unownedPlan(step: CreateApiStep): UnownedPlan {
  if (step.unownedPlan === undefined) throw new Error('create api: no plan for the unowned kind of this run');
  return step.unownedPlan;
}

/** create api's phases after resolve, for a kind this project does not own. */
export const UNOWNED_CONTROLLER_PHASES: PhaseHandlers<CreateApiStep> = {
  async preScaffold(step) {
    const { options, context, tree, project } = step;
    const { version, kind, group } = step.gvk!;
    const target = step.unowned!;
    if (options.controller === false)
      throw new UsageError(
        `nothing to create: ${kind} is not an API of this project, so there are no types to scaffold, and --controller is off`,
        'pass --controller',
      );
    if (options.plural !== undefined) requireValid(checkPlural, options.plural, '--plural');

    let entry: ProjectResource;
    let modules: KindModules | undefined;
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
      modules = kindModulesOf(entry, '../../');
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
    step.unownedPlan = { entry, modules, builtin, namespaced, apiGroup, controllerNames };
  },

  async scaffold(step) {
    const { options, context, tree, project } = step;
    const { version, kind } = step.gvk!;
    const { entry, modules, builtin, namespaced, apiGroup, controllerNames } = unownedPlan(step);
    const data: UnownedApiTemplateData = {
      ...reconcilerTemplateData(controllerNames),
      kind,
      apiVersion: apiGroup === '' ? version : `${apiGroup}/${version}`,
      plural: entry.plural,
      // controller-gen's spelling of the core group in RBAC markers.
      rbacGroup: apiGroup === '' ? 'core' : apiGroup,
      descriptor: builtin?.descriptor ?? descriptorNameOf(kind),
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
      { template: UNOWNED_CONTROLLER_TEMPLATES, data },
      builtin ? { template: UNOWNED_CONTROLLER_TEST_TEMPLATES, data: async () => data } : undefined,
      force,
      controllerNames,
    );
    await insertControllerWiring(tree, controllerNames);

    recordUnownedController(project, entry, options.controllerName);
  },

  postScaffold(step, result) {
    if (!result.written) return;
    const { builtin, modules, controllerNames } = unownedPlan(step);
    const external = step.unowned!.external;
    const next = builtin
      ? 'run `npm run generate` for the RBAC role, then `npm test`.'
      : `run \`npm run generate\` for the RBAC role${modules!.descriptorModule.startsWith('../') ? ' and the typed client' : ''}${external.module !== undefined && !isCrdSource(external.module) ? ', and `npm install` for the package' : ''}.`;
    step.context.out.info(
      `\nNext: write the reconcile logic in ${CREATE_API_PATHS.namedControllerFile(controllerNames)}, then ${next}`,
    );
  },
};
