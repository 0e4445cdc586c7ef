/**
 * What `kop create api` stages for a kind: the template values that name a reconciler, the
 * reconciler and its test (record-resource.ts records the kind in PROJECT).
 */
import type { Context } from '../base/index.js';
import { declarationMarkers } from '../markers/index.js';
import {
  moduleFrom,
  readKindShape,
  scaffoldKindFixture,
  type FixtureTarget,
  CREATE_API_PATHS,
  placeControllerFile,
  type ControllerNames,
  type ResourceNames,
  pluralOf,
} from '../project/index.js';
import { renderTemplateDir, type TemplateFolder, type VirtualTree } from '../scaffold/index.js';
import type { KindTestTemplateData, OwnedReconcilerTemplateData, ReconcilerTemplateData } from './api-template-data.js';

/** The template values that name a reconciler. */
export function reconcilerTemplateData(controller: ControllerNames): ReconcilerTemplateData {
  return {
    reconcilerClass: controller.className,
    controllerName: controller.name,
    controllerStem: controller.stem,
    // The reconciler's file under src/controllers/ without extension (`<group>/<stem>` in multigroup projects),
    // and the way back to the project root from it and from its test, for relative imports.
    controllerPath: `${controller.dir}${controller.stem}`,
    toRoot: controller.toRoot,
  };
}

/** The template values of a reconciler of a kind of this project; the kind's unnamed one keeps the finalizer it always had. */
export function controllerTemplateData(
  controller: ControllerNames,
  kind: string,
  group: string,
  isolate: boolean,
): OwnedReconcilerTemplateData {
  return {
    ...reconcilerTemplateData(controller),
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
 * Whether a reconciler of the kind reports a Ready condition (`hasConditions`, the one decision
 * both reconcilers, update and server-side apply, and their tests follow).
 */
export async function kindReportsReady(tree: VirtualTree, target: FixtureTarget): Promise<boolean> {
  const typesText = (await tree.read(target.typesFile)) ?? '';
  // Ready goes into status.conditions through the status subresource (and the generated
  // statusApplyConfigurationFor<Kind> exists only with it): both must be there.
  const shape = await readKindShape(typesText, target.kind);
  return (
    shape?.hasConditions === true &&
    ((await declarationMarkers(typesText, target.typesFile, target.kind)) ?? []).some(
      (m) => m.text === '+kubebuilder:subresource:status',
    )
  );
}

/**
 * The fixture a reconciler's test creates objects from, `valid<Kind>()`, scaffolded once per
 * kind (see project/kind-fixture.ts), as the test at `controllerPath` imports it.
 */
export async function kindFixture(
  tree: VirtualTree,
  target: FixtureTarget,
  licenseHeaderTs: string,
  controllerPath: string,
): Promise<Pick<KindTestTemplateData, 'fixtureFunction' | 'fixtureModule'>> {
  const { file } = await scaffoldKindFixture(tree, target, licenseHeaderTs);
  return {
    fixtureModule: moduleFrom(`test/controllers/${controllerPath}.controller.test.ts`, file),
    fixtureFunction: `valid${target.kind}`,
  };
}

/**
 * Renders a reconciler and, when the project has a control plane for tests, its test; `test.data`
 * is asked for only then, before the reconciler is rendered (it may scaffold the kind's fixture).
 */
export async function scaffoldController<C extends object, T extends object>(
  tree: VirtualTree,
  context: Context,
  controller: { template: TemplateFolder<C>; data: C },
  test: { template: TemplateFolder<T>; data: () => Promise<T> } | undefined,
  force: boolean,
  names: ControllerNames,
): Promise<void> {
  // The test reaches the control plane that test/global-setup.ts (from kop init) starts.
  const testData = test && (await tree.exists(CREATE_API_PATHS.globalSetup)) ? await test.data() : undefined;
  for (const file of await renderTemplateDir(controller.template, controller.data))
    await tree.scaffold(placeControllerFile(file.path, names), file.content, { force });
  if (test === undefined) return;
  if (testData !== undefined) {
    for (const file of await renderTemplateDir(test.template, testData))
      await tree.scaffold(placeControllerFile(file.path, names), file.content, { force });
  } else {
    context.out.warn(
      `no reconciler test: the project has no ${CREATE_API_PATHS.globalSetup} to start a control plane for it`,
    );
  }
}

/** `+kubebuilder:resource:` arguments, only where the defaults would be wrong. */
export function resourceMarker(names: ResourceNames, namespaced: boolean): string {
  const args: string[] = [];
  if (names.plural !== pluralOf(names.kind)) args.push(`path=${names.plural}`);
  if (!namespaced) args.push('scope=Cluster');
  return args.join(',');
}
