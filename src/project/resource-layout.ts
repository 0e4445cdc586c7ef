/**
 * The file layout of a kind/version in a project and its wiring into the files `kop init`
 * scaffolds: `kop create api` writes these files and lines, and `kop init --force`
 * re-inserts the lines of the resources PROJECT records.
 */
import { insertIntoFile } from '../scaffold/insert.js';
import type { VirtualTree } from '../scaffold/tree.js';
import { fullGroup, type ProjectResource } from './project-file.js';
import { singularOf } from './resource.js';

/** Files and markers `kop create api` writes, for tests and other generators. */
export const CREATE_API_PATHS = {
  typesFile: (r: ResourceNames) => `api/${r.group}/${r.version}/${r.kindLower}.types.ts`,
  groupVersionFile: (r: ResourceNames) => `api/${r.group}/${r.version}/groupversion.ts`,
  sampleFile: (r: ResourceNames) => `config/samples/${r.sampleName}.yaml`,
  controllerFile: (r: ResourceNames) => `src/controllers/${r.kindLower}.controller.ts`,
  controllerTestFile: (r: ResourceNames) => `test/controllers/${r.kindLower}.controller.test.ts`,
  globalSetup: 'test/global-setup.ts',
  samplesKustomization: 'config/samples/kustomization.yaml',
  main: 'src/main.ts',
} as const;

/** The names of one kind/version that file names and templates use. */
export interface ResourceNames {
  group: string;
  version: string;
  kind: string;
  kindLower: string;
  plural: string;
  fullGroup: string;
  apiVersion: string;
  /** `<group>_<version>_<kind-lower>`, the sample's file stem. */
  sampleName: string;
}

/** The names of a kind/version recorded in PROJECT, as create api derived them. */
export function resourceNamesOf(resource: ProjectResource): ResourceNames {
  const kindLower = singularOf(resource.kind);
  const full = fullGroup(resource);
  return {
    group: resource.group,
    version: resource.version,
    kind: resource.kind,
    kindLower,
    plural: resource.plural,
    fullGroup: full,
    apiVersion: `${full}/${resource.version}`,
    sampleName: `${resource.group}_${resource.version}_${kindLower}`,
  };
}

/**
 * Stages the lines create api places at scaffold markers: the sample in
 * config/samples/kustomization.yaml, and the reconciler's import and construction in
 * src/main.ts. Lines already there are skipped, so this also re-wires a re-scaffolded project.
 */
export async function insertResourceWiring(
  tree: VirtualTree,
  names: Pick<ResourceNames, 'kind' | 'kindLower' | 'sampleName'>,
  wiring: { sample: boolean; controller: boolean },
): Promise<void> {
  if (wiring.sample) await insertIntoFile(tree, CREATE_API_PATHS.samplesKustomization, [{ marker: 'samples', code: `- ${names.sampleName}.yaml` }]);
  if (wiring.controller) {
    await insertIntoFile(tree, CREATE_API_PATHS.main, [
      { marker: 'imports', code: `import { ${names.kind}Reconciler } from './controllers/${names.kindLower}.controller.js';` },
      {
        marker: 'controllers',
        // The manager runs it on every change to a ${kind} (kop/runtime's controller builder).
        code: `new ${names.kind}Reconciler().setupWithManager(manager);`,
      },
    ]);
  }
}
