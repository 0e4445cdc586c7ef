/**
 * The data of templates/plugins/deploy-image, which `create api --plugins deploy-image/v1-alpha`
 * renders in place of create api's types, reconciler and test: create api's data plus the
 * image's, which the plugin brings itself (withTemplateData).
 */
import type { ApiControllerData, ApiControllerTestData, ResourceTemplateData } from '../../create-api/index.js';
import { templateFolder } from '../../scaffold/index.js';

/** What the plugin adds to create api's data: the image and how its container runs. */
export interface DeployImageTemplateData {
  image: string;
  /** The manager's variable that holds the image (`<KIND>_IMAGE`), and the reconciler's constant naming it. */
  imageEnvVar: string;
  imageEnvConstant: string;
  containerName: string;
  /** --image-container-command split at commas, and as a TypeScript array literal; false without it. */
  containerCommand: string[] | false;
  containerCommandLiteral: string | false;
  /** --image-container-port, false without it. */
  containerPort: number | false;
  /** The container port's name. */
  portName: string;
  /** --run-as-user, false without it. */
  runAsUser: number | false;
  /** The Deployment's app.kubernetes.io/component and managed-by labels. */
  componentLabel: string;
  managedByLabel: string;
}

/** What templates/plugins/deploy-image/resource reads: the types with spec.size, and a sample. */
export type DeployImageResourceTemplateData = ResourceTemplateData &
  Pick<DeployImageTemplateData, 'image' | 'containerPort'>;

/** What templates/plugins/deploy-image/controller reads: a reconciler that runs the image as a Deployment. */
export type DeployImageControllerTemplateData = Pick<
  ApiControllerData,
  | 'group'
  | 'version'
  | 'kind'
  | 'kindLower'
  | 'plural'
  | 'fullGroup'
  | 'projectName'
  | 'controllerName'
  | 'toRoot'
  | 'descriptor'
  | 'licenseHeaderTs'
> &
  DeployImageTemplateData;

/** What templates/plugins/deploy-image/controller-test reads. */
export type DeployImageControllerTestTemplateData = Pick<
  ApiControllerTestData,
  | 'group'
  | 'version'
  | 'kind'
  | 'kindLower'
  | 'controllerPath'
  | 'toRoot'
  | 'testNamespace'
  | 'descriptor'
  | 'fixtureFunction'
  | 'fixtureModule'
  | 'licenseHeaderTs'
> &
  Pick<DeployImageTemplateData, 'containerCommand' | 'containerCommandLiteral' | 'containerPort' | 'runAsUser'>;

export const DEPLOY_IMAGE_RESOURCE_TEMPLATES = templateFolder<DeployImageResourceTemplateData>(
  'plugins/deploy-image/resource',
);
export const DEPLOY_IMAGE_CONTROLLER_TEMPLATES = templateFolder<DeployImageControllerTemplateData>(
  'plugins/deploy-image/controller',
);
export const DEPLOY_IMAGE_CONTROLLER_TEST_TEMPLATES = templateFolder<DeployImageControllerTestTemplateData>(
  'plugins/deploy-image/controller-test',
);
