/**
 * `kop generate client`: one descriptor file per kind and version, from the same API model the
 * CRD generator reads (src/schema/model.ts), so types, CRDs and descriptors never drift. Each
 * file is `api/<group>/<version>/<kind-lower>.client.ts` and exports `<kind>Type`, a
 * `ResourceType<Kind>`: the one client (`Client`) takes it for every read and write, as the
 * controller builder does for `for()`, `owns()` and `watches()`.
 */
import * as path from 'node:path';
import { descriptorNameOf } from '../project/index.js';
import { KopError } from '../base/index.js';
import { GENERATED_HEADER } from '../scaffold/index.js';
import type { ApiKind, ApiKindVersion, ApiModel } from '../schema/index.js';

/** One generated descriptor file. */
export interface GeneratedClientFile {
  /** Project-relative path with forward slashes. */
  path: string;
  content: string;
}

/** The module the generated descriptors import `ResourceType` from. */
export const RUNTIME_MODULE = 'kop/runtime';

/** Renders the descriptor files of every served kind version in the model, sorted by path. */
export function generateClients(model: ApiModel): GeneratedClientFile[] {
  const files: GeneratedClientFile[] = [];
  for (const kind of model.kinds) {
    for (const version of kind.versions) {
      if (version.skipped || !version.served) continue;
      files.push(renderClient(kind, version));
    }
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The path of a kind version's descriptor file. */
export function clientPath(kind: ApiKind, version: ApiKindVersion): string {
  return path.posix.join(version.package.dir, `${kind.kind.toLowerCase()}.client.ts`);
}

function renderClient(kind: ApiKind, version: ApiKindVersion): GeneratedClientFile {
  const file = clientPath(kind, version);
  const declaration = version.declaration;
  if (!declaration.exported) {
    throw new KopError(
      `${kind.kind} (${declaration.location.file}:${declaration.location.line}) is not exported, so its client cannot import it`,
      `write "export interface ${kind.kind}"`,
    );
  }
  let typesModule = path.posix.relative(path.posix.dirname(file), declaration.file).replace(/\.ts$/, '.js');
  if (!typesModule.startsWith('.')) typesModule = `./${typesModule}`;

  const T = kind.kind;
  const namespaced = kind.scope === 'Namespaced';
  const apiVersion = `${kind.group}/${version.version}`;

  const content = [
    `// ${GENERATED_HEADER}`,
    `// The descriptor of ${T} (${apiVersion}), from ${declaration.file}.`,
    '',
    `import type { ResourceType } from '${RUNTIME_MODULE}';`,
    `import type { ${T} } from '${typesModule}';`,
    '',
    `/** ${T} (${apiVersion}): the descriptor the client (\`client.get(${descriptorNameOf(T)}, key)\`), \`for()\`, \`owns()\` and \`watches()\` take. */`,
    `export const ${descriptorNameOf(T)}: ResourceType<${T}> = {`,
    `  group: '${kind.group}',`,
    `  version: '${version.version}',`,
    `  kind: '${T}',`,
    `  listKind: '${T}List',`,
    `  resource: '${kind.plural}',`,
    `  namespaced: ${namespaced},`,
    '};',
    '',
  ].join('\n');
  return { path: file, content };
}
