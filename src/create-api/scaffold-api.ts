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
  type KindShape,
  CREATE_API_PATHS,
  placeControllerFile,
  type ControllerNames,
  type ResourceNames,
  pluralOf,
} from '../project/index.js';
import { renderTemplateDir, type TemplateData, type VirtualTree } from '../scaffold/index.js';

/** The template values that name a reconciler; the kind's unnamed one keeps the finalizer it always had. */
export function controllerTemplateData(
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
export async function kindTestData(
  tree: VirtualTree,
  target: FixtureTarget,
  data: TemplateData,
): Promise<TemplateData> {
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
export async function scaffoldController(
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

/** `+kubebuilder:resource:` arguments, only where the defaults would be wrong. */
export function resourceMarker(names: ResourceNames, namespaced: boolean): string {
  const args: string[] = [];
  if (names.plural !== pluralOf(names.kind)) args.push(`path=${names.plural}`);
  if (!namespaced) args.push('scope=Cluster');
  return args.join(',');
}
