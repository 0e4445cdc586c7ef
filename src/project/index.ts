/**
 * The public module of src/project/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { describeBuiltinKinds } from './builtin-kinds.js';
export { builtinSampleFields, builtinSampleLiteral } from './builtin-samples.js';
export type { BuiltinKind } from './builtin-kinds.js';
export { runCommandPipeline, runPhases } from './command-pipeline.js';
export type { CommandStep, PhaseHandlers } from './command-pipeline.js';
export { moduleFrom, readKindShape, scaffoldKindFixture } from './kind-fixture.js';
export type { FixtureTarget, KindShape } from './kind-fixture.js';
export { FIXTURE_TEMPLATES, GROUP_VERSION_TEMPLATES } from './kind-template-data.js';
export type { FixtureTemplateData, GroupVersionTemplateData } from './kind-template-data.js';
export { pluralOfKind } from './plural.js';
export {
  LAYOUT,
  PROJECT_FILE,
  PROJECT_FORMAT_VERSION,
  fullGroup,
  loadProjectFile,
  saveProjectFile,
} from './project-file.js';
export type {
  DeployImageOptions,
  DeployImageResource,
  ProjectFile,
  ProjectResource,
  ProjectWebhooks,
} from './project-file.js';
export {
  CREATE_API_PATHS,
  controllerGroupOf,
  controllerNamesOf,
  controllerWiringLines,
  controllersOf,
  insertControllerWiring,
  nameKindInShardingExample,
  rewireControllers,
  withShardingExampleOf,
  insertResourceWiring,
  kindModulesOf,
  placeControllerFile,
  resourceNamesOf,
  roleStemOf,
} from './resource-layout.js';
export type { ControllerNames, KindModules, ResourceNames } from './resource-layout.js';
export { originOf, resolveResource } from './resource-model.js';
export type { Resource } from './resource-model.js';
export {
  checkControllerName,
  checkDomain,
  checkGroup,
  checkKind,
  checkProjectName,
  checkVersion,
  descriptorNameOf,
  isDns1123Label,
  isDns1123Subdomain,
  pluralOf,
  requireValid,
  singularOf,
} from './resource.js';
export type { NameCheck } from './resource.js';
export {
  MAIN_WEBHOOK_CALL,
  WEBHOOK_PATHS,
  admissionWebhookName,
  admissionWebhookPath,
  checkWebhookPath,
  conversionPatchFile,
  insertWebhookWiring,
  upperFirst,
  webhookNamePrefix,
  webhookRegistration,
} from './webhook-layout.js';
export type { WebhookRegistration } from './webhook-layout.js';
