/**
 * The public module of src/deploy/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { parseImageReference, splitImage } from './image-reference.js';
export { renderKustomization } from './render-kustomization.js';
export type { ManifestObject } from './render-kustomization.js';
export {
  DEPLOY_PATHS,
  connect,
  runBuildInstaller,
  runDeploy,
  runInstall,
  runUndeploy,
  runUninstall,
} from './run-deploy.js';
export type {
  BuildInstallerOptions,
  ClusterOptions,
  DeleteOptions,
  DeployOptions,
  InstallOptions,
} from './run-deploy.js';
export { describeRejectedObjects, findRejectedStoredObjects } from './stored-objects-check.js';
export type { RejectedObjects } from './stored-objects-check.js';
