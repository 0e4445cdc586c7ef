/** Types of compare-project.mjs: PROJECT against Kubebuilder's, normalised. */
export interface NormalisedApi {
  namespaced: boolean;
  ssa?: true;
}
export interface NormalisedWebhooks {
  defaulting?: true;
  validation?: true;
  conversion?: true;
  spoke?: string[];
  defaultingPath?: string;
  validationPath?: string;
}
export interface NormalisedResource {
  group: string;
  version: string;
  kind: string;
  domain?: string;
  plural?: string;
  api?: NormalisedApi;
  controllers?: true | string[];
  webhooks?: NormalisedWebhooks;
  core?: true;
  external?: true;
  module?: string;
}
export interface NormalisedProject {
  domain: string;
  projectName: string;
  multigroup: boolean;
  namespaced: boolean;
  plugins: Record<string, Record<string, unknown>>;
  resources: NormalisedResource[];
}
export declare function resourceKey(resource: { group: string; version: string; kind: string }): string;
export declare function pluginShortName(key: string): string;
export declare function defaultWebhookPath(
  prefix: 'mutate' | 'validate',
  resource: { group: string; version: string; kind: string; domain?: string; core?: boolean },
): string;
export declare function normaliseResource(resource: Record<string, unknown>): NormalisedResource;
export declare function normaliseProject(document: Record<string, unknown>): NormalisedProject;
/** One line per difference; empty when the PROJECT text agrees with the expectation. */
export declare function compareProject(
  projectText: string,
  expectation: NormalisedProject | Record<string, unknown>,
): string[];
