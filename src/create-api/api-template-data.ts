/**
 * The data of templates/api's folders that `kop create api` renders for a kind: its types and
 * sample, its roles, and a reconciler with its test (for a kind of the project, or one it does
 * not own). api/groupversion and api/fixture are in project/kind-template-data.ts: other
 * commands render them too.
 */
import type { GroupVersionTemplateData, ResourceNames } from '../project/index.js';
import { type TemplateFolder, templateFolder } from '../scaffold/index.js';

/** What templates/api/resource reads: the kind's types file and its sample. */
export interface ResourceTemplateData extends Pick<
  ResourceNames,
  'group' | 'version' | 'kind' | 'kindLower' | 'plural' | 'fullGroup' | 'apiVersion' | 'sampleName'
> {
  projectName: string;
  /** `+kubebuilder:resource:` arguments, '' when the defaults are right (see resourceMarker). */
  resourceMarker: string;
  /** metadata.name of the sample. */
  sampleObjectName: string;
  licenseHeaderTs: string;
  licenseHeaderYaml: string;
}

/** What templates/api/roles reads: the admin, editor and viewer roles of the kind. */
export interface RolesTemplateData extends Pick<ResourceNames, 'fullGroup' | 'plural' | 'roleStem'> {
  /** `<plural>/status`, the status subresource in a rule. */
  pluralStatus: string;
  roleNameAdmin: string;
  roleNameEditor: string;
  roleNameViewer: string;
  licenseHeaderYaml: string;
}

/** The names of a reconciler (see reconcilerTemplateData). */
export interface ReconcilerTemplateData {
  reconcilerClass: string;
  /** The name it is registered under with the manager. */
  controllerName: string;
  /** Its file stem, `__controllerStem__` in the templates' file names. */
  controllerStem: string;
  /** Its file under src/controllers/ without extension: `<group>/<stem>` in multigroup projects. */
  controllerPath: string;
  /** From its folder (and its test's) back to the project root, for relative imports. */
  toRoot: string;
}

/** A reconciler of a kind of this project: its names, its finalizer and its test's namespace. */
export interface OwnedReconcilerTemplateData extends ReconcilerTemplateData {
  finalizer: string;
  /** The namespace its test creates objects in, false for a cluster-scoped kind. */
  testNamespace: string | false;
}

/** What the kind's types say about a reconciler of it and its test (see kindReportsReady, kindFixture). */
export interface KindTestTemplateData {
  /** The kind reports a Ready condition through its status subresource. */
  hasConditions: boolean;
  /** `valid<Kind>()`, which the test creates objects from, and the module it is in. */
  fixtureFunction: string;
  fixtureModule: string;
}

type KindKeys = 'group' | 'version' | 'kind' | 'kindLower' | 'plural' | 'fullGroup';

/** What templates/api/controller reads: a reconciler that updates. */
export interface ControllerTemplateData
  extends
    Pick<ResourceNames, KindKeys>,
    Pick<OwnedReconcilerTemplateData, 'reconcilerClass' | 'controllerName' | 'controllerStem' | 'toRoot' | 'finalizer'>,
    Pick<KindTestTemplateData, 'hasConditions'> {
  /** The kind's ResourceType descriptor, from its generated client. */
  descriptor: string;
  licenseHeaderTs: string;
}

/** What templates/api/controller-ssa/controller reads: a reconciler that writes by server-side apply. */
export interface SsaControllerTemplateData extends ControllerTemplateData {
  namespaced: boolean;
}

/** What templates/api/controller-test and api/controller-ssa/test read: a reconciler's test. */
export interface ControllerTestTemplateData
  extends
    Pick<ResourceNames, 'group' | 'version' | 'kind' | 'kindLower'>,
    Pick<
      OwnedReconcilerTemplateData,
      'reconcilerClass' | 'controllerStem' | 'controllerPath' | 'toRoot' | 'testNamespace'
    >,
    KindTestTemplateData {
  descriptor: string;
  namespaced: boolean;
  licenseHeaderTs: string;
}

/** What templates/api/controller-unowned reads: a reconciler of a kind this project does not own. */
export interface UnownedControllerTemplateData
  extends
    Pick<ResourceNames, 'kind' | 'apiVersion' | 'plural'>,
    Pick<ReconcilerTemplateData, 'reconcilerClass' | 'controllerName' | 'controllerStem'> {
  /** The group in RBAC markers: `core` for the core group, as controller-gen spells it. */
  rbacGroup: string;
  descriptor: string;
  /** Where the descriptor and the kind's type are imported from. */
  descriptorModule: string;
  typesModule: string;
  /** Whose kind it is, in the reconciler's doc comment. */
  ownerNote: string;
  licenseHeaderTs: string;
}

/** What templates/api/controller-unowned-test reads: the test of a built-in kind's reconciler. */
export interface UnownedControllerTestTemplateData
  extends
    Pick<ResourceNames, 'kind'>,
    Pick<ReconcilerTemplateData, 'reconcilerClass' | 'controllerStem' | 'controllerPath' | 'toRoot'> {
  descriptor: string;
  namespaced: boolean;
  /** An object literal of the kind that the apiserver admits. */
  sampleObject: string;
  licenseHeaderTs: string;
}

export const RESOURCE_TEMPLATES = templateFolder<ResourceTemplateData>('api/resource');
export const ROLES_TEMPLATES = templateFolder<RolesTemplateData>('api/roles');
export const CONTROLLER_TEMPLATES = templateFolder<ControllerTemplateData>('api/controller');
export const CONTROLLER_TEST_TEMPLATES = templateFolder<ControllerTestTemplateData>('api/controller-test');
export const SSA_CONTROLLER_TEMPLATES = templateFolder<SsaControllerTemplateData>('api/controller-ssa/controller');
export const SSA_CONTROLLER_TEST_TEMPLATES = templateFolder<ControllerTestTemplateData>('api/controller-ssa/test');
export const UNOWNED_CONTROLLER_TEMPLATES = templateFolder<UnownedControllerTemplateData>('api/controller-unowned');
export const UNOWNED_CONTROLLER_TEST_TEMPLATES =
  templateFolder<UnownedControllerTestTemplateData>('api/controller-unowned-test');

/**
 * What create api builds once for a kind of this project (run-create-api.ts): the data of every
 * folder it renders, but what the kind's types say (KindTestTemplateData), read when the reconciler is.
 */
export type ApiTemplateData = GroupVersionTemplateData &
  ResourceTemplateData &
  RolesTemplateData &
  Omit<SsaControllerTemplateData & ControllerTestTemplateData, keyof KindTestTemplateData>;

/** What create api renders a reconciler with, and its test. */
export type ApiControllerData = ApiTemplateData & Pick<KindTestTemplateData, 'hasConditions'>;
export type ApiControllerTestData = ApiTemplateData & KindTestTemplateData;

/** What create api builds for a reconciler of a kind this project does not own (unowned-controller.ts). */
export type UnownedApiTemplateData = UnownedControllerTemplateData & UnownedControllerTestTemplateData;

/**
 * The folders of a kind's own files that a plugin may replace (CreateApiStep.templates), each
 * typed by the data create api renders it with: a replacement that reads more brings the rest
 * (withTemplateData).
 */
export interface ApiTemplateFolders {
  'api/resource': TemplateFolder<ApiTemplateData>;
  'api/controller': TemplateFolder<ApiControllerData>;
  'api/controller-test': TemplateFolder<ApiControllerTestData>;
  'api/controller-ssa/controller': TemplateFolder<ApiControllerData>;
  'api/controller-ssa/test': TemplateFolder<ApiControllerTestData>;
}

/** create api's own folders. */
export const API_TEMPLATES: ApiTemplateFolders = {
  'api/resource': RESOURCE_TEMPLATES,
  'api/controller': CONTROLLER_TEMPLATES,
  'api/controller-test': CONTROLLER_TEST_TEMPLATES,
  'api/controller-ssa/controller': SSA_CONTROLLER_TEMPLATES,
  'api/controller-ssa/test': SSA_CONTROLLER_TEST_TEMPLATES,
};
