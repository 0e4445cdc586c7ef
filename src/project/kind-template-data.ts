/**
 * The data of the templates/api folders that more than one command renders for a kind: its
 * group-version file (create api, import crd) and its test fixture (create api, create webhook).
 */
import { templateFolder } from '../scaffold/index.js';
import type { ResourceNames } from './resource-layout.js';

/** What templates/api/groupversion reads: `api/<group>/<version>/groupversion.ts`. */
export interface GroupVersionTemplateData extends Pick<
  ResourceNames,
  'group' | 'version' | 'fullGroup' | 'apiVersion'
> {
  /** hack/boilerplate's comment for TypeScript files ('' without one). */
  licenseHeaderTs: string;
}

/** templates/api/groupversion. */
export const GROUP_VERSION_TEMPLATES = templateFolder<GroupVersionTemplateData>('api/groupversion');

/** What templates/api/fixture reads: the kind's `valid<Kind>()`, which its tests create objects from. */
export interface FixtureTemplateData extends Pick<ResourceNames, 'kind' | 'kindLower' | 'apiVersion'> {
  namespaced: boolean;
  /** The kind's types file as the fixture file imports it. */
  fixtureTypesModule: string;
  /** Object-literal lines of the required fields (KindShape's). */
  fixtureFields: string[];
  licenseHeaderTs: string;
}

/** templates/api/fixture. */
export const FIXTURE_TEMPLATES = templateFolder<FixtureTemplateData>('api/fixture');
