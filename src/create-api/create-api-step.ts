/**
 * What the phases of one `kop create api` run share (project/command-pipeline.ts): each phase
 * fills in what the next ones need. Plugins of create api (deploy-image) read and extend it.
 */
import type { BuiltinKind } from '../project/index.js';
import type { ProjectResource, CommandStep, Resource, ControllerNames, ResourceNames } from '../project/index.js';
import type { ExternalApiFlags } from '../import/index.js';
import type { CreateApiFlags } from './create-api-flags.js';
import type { ConversionChoice } from './create-api-checks.js';
import type { ApiTemplateData, ApiTemplateFolders } from './api-template-data.js';

/** The template folders of a kind's own files, which a plugin may replace with its own. */
export type ApiTemplate =
  | 'api/resource'
  | 'api/controller'
  | 'api/controller-test'
  | 'api/controller-ssa/controller'
  | 'api/controller-ssa/test';

/** One `kop create api` run. */
export interface CreateApiStep extends CommandStep {
  /** The flags; a plugin's bindFlags may settle some (deploy-image: always types and a reconciler). */
  options: CreateApiFlags;
  /** Template folders rendered instead of create api's own, by the one they replace (set by plugins). */
  templates: Partial<ApiTemplateFolders>;
  /** bindFlags: the --external-api-* flags. */
  external?: ExternalApiFlags;
  /** resolve: the kind, its full group and the PROJECT entries of its other versions. */
  gvk?: { group: string; version: string; kind: string; fullGroup: string };
  sameKind?: ProjectResource[];
  /** resolve: whether the kind's types are scaffolded (asked on a terminal). */
  resource?: boolean;
  /** resolve: set when the kind is not this project's (built in, imported, external): a reconciler alone. */
  unowned?: UnownedTarget;
  /** preScaffold, for a kind of this project: what is scaffolded and its template data. */
  owned?: OwnedPlan;
  /** preScaffold, for a kind this project does not own. */
  unownedPlan?: UnownedPlan;
}

/** A kind this project does not own, as resolve found it. */
export interface UnownedTarget {
  external: ExternalApiFlags;
  /** The kind as PROJECT or kop/runtime has it (imported or built-in); undefined when the --external-api-* flags name it. */
  found?: Resource;
}

/** What create api scaffolds for a kind of this project, settled before anything is staged. */
export interface OwnedPlan {
  /** This kind/version's PROJECT entry from an earlier run. */
  existing: ProjectResource | undefined;
  plural: string;
  namespaced: boolean;
  controller: boolean;
  conversion: ConversionChoice | undefined;
  controllerNames: ControllerNames;
  ssa: boolean;
  names: ResourceNames;
  /** The templates' values. */
  data: ApiTemplateData;
  /** scaffold: what to do next about the conversion webhook staged with the version. */
  webhookNext?: string;
}

/** A reconciler for a kind this project does not own, settled before anything is staged. */
export interface UnownedPlan {
  entry: ProjectResource;
  /** Where the reconciler imports the kind's descriptor and type from (undefined: a built-in kind). */
  modules: { descriptorModule: string; typesModule: string } | undefined;
  builtin: BuiltinKind | undefined;
  namespaced: boolean | undefined;
  apiGroup: string;
  controllerNames: ControllerNames;
}

/** The plan of a run for a kind of this project, once preScaffold settled it. */
export function ownedPlan(step: CreateApiStep): OwnedPlan {
  if (step.owned === undefined) throw new Error('create api: the kind of this run is not one of the project (no plan)');
  return step.owned;
}
