/**
 * The files one imported CRD becomes, in the layout `kop create api` writes: per version,
 * `api/<group>/<version>/<kind>.types.ts` and the folder's `groupversion.ts` (when the folder
 * has none yet).
 */
import { withHeader } from '../scaffold/index.js';
import { renderTemplateDir } from '../scaffold/index.js';
import { GROUP_VERSION_TEMPLATES, singularOf, type GroupVersionTemplateData } from '../project/index.js';
import type { CoreTypeIndex } from './core-type-index.js';
import type { ImportedCrd } from './imported-crd.js';
import { renderTypesFile } from './render-types.js';
import { UnsupportedSchemaError, versionTypes } from './schema-to-types.js';
import { ImportError } from './imported-crd.js';

export interface KindFilesOptions {
  /** The folder under api/ for the CRD's group (its first label, or more when that one is taken). */
  groupDir: string;
  rawSchema: boolean;
  /** An owned import: the CRD must come back exactly. */
  exact: boolean;
  licenseHeader: string;
  /** Reads a project file as the command sees it (staged or on disk); undefined when absent. */
  read(file: string): Promise<string | undefined>;
}

export interface KindFiles {
  /** Project-relative path -> content: the types file of each version. */
  types: Map<string, string>;
  /** groupversion.ts of the folders that have none. */
  groupVersions: Map<string, string>;
  usesFloats: boolean;
  /** Schema paths kept verbatim with +kop:schema, as `<version> <path>`. */
  verbatimPaths: string[];
}

/** Types (and group-version) files of every version of an imported CRD. */
export async function kindFiles(
  imported: ImportedCrd,
  core: CoreTypeIndex,
  options: KindFilesOptions,
): Promise<KindFiles> {
  const { crd, where } = imported;
  const result: KindFiles = { types: new Map(), groupVersions: new Map(), usesFloats: false, verbatimPaths: [] };
  for (const version of crd.spec.versions) {
    let types;
    try {
      types = versionTypes(crd, version, core, { rawSchema: options.rawSchema, exact: options.exact });
    } catch (error) {
      if (!(error instanceof UnsupportedSchemaError)) throw error;
      throw new ImportError(
        where,
        `version ${version.name}, ${error.path || '.'}: ${error.problem}`,
        error.rawable && !options.rawSchema
          ? 'pass --raw-schema to keep that subtree verbatim in the types (with a +kop:schema marker)'
          : options.exact
            ? 'kop cannot give this CRD back exactly; import it without --own to use its types and client'
            : undefined,
      );
    }
    result.usesFloats ||= types.usesFloats;
    result.verbatimPaths.push(...types.verbatimPaths.map((p) => `${version.name} ${p}`));
    const dir = `api/${options.groupDir}/${version.name}`;
    const banner = [
      `${crd.spec.names.kind} ${crd.spec.group}/${version.name}, imported by \`kop import crd\` from ${where}.`,
      options.exact
        ? '`kop generate manifests` writes its CRD from these types: change them to change the API.'
        : 'The CRD belongs to another project: kop generates a typed client from these types, never the CRD.',
    ];
    const typesFile = `${dir}/${singularOf(crd.spec.names.kind)}.types.ts`;
    // An owned kind's types are the user's from now on; an external kind's are rewritten by importing it again.
    result.types.set(
      typesFile,
      withHeader(
        typesFile,
        renderTypesFile(types, { licenseHeader: options.licenseHeader, banner }),
        options.exact ? 'scaffolded' : 'generated',
      ),
    );
    const groupVersion = `${dir}/groupversion.ts`;
    if ((await options.read(groupVersion)) === undefined) {
      const data: GroupVersionTemplateData = {
        group: options.groupDir,
        version: version.name,
        fullGroup: crd.spec.group,
        apiVersion: `${crd.spec.group}/${version.name}`,
        licenseHeaderTs: options.licenseHeader,
      };
      for (const file of await renderTemplateDir(GROUP_VERSION_TEMPLATES, data))
        result.groupVersions.set(file.path, file.content);
    }
  }
  return result;
}
