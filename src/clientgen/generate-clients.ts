/**
 * `kop generate client`: one typed client file per kind and version, from the same API model
 * the CRD generator reads (src/schema/model.ts), so types, CRDs and clients never drift.
 * Each file is `api/<group>/<version>/<kind-lower>.client.ts` and builds on kop/runtime's
 * generic resource clients; kinds with a scale subresource get getScale/updateScale.
 */
import * as path from 'node:path';
import { descriptorNameOf, lowerFirstWord } from '../project/resource.js';
import { KopError } from '../base/errors.js';
import { GENERATED_HEADER } from '../scaffold/header.js';
import { findMarker } from '../schema/markers.js';
import type { ApiKind, ApiKindVersion, ApiModel } from '../schema/model.js';

/** One generated client file. */
export interface GeneratedClientFile {
  /** Project-relative path with forward slashes. */
  path: string;
  content: string;
}

/** The module generated clients import kop's runtime from. */
export const RUNTIME_MODULE = 'kop/runtime/client';

/** Renders the client files of every served kind version in the model, sorted by path. */
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

/** The path of a kind version's client file. */
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
  const base = lowerFirstWord(T);
  const namespaced = kind.scope === 'Namespaced';
  const scalable = findMarker(declaration.markers, 'kubebuilder:subresource:scale') !== undefined;
  const hasStatus = findMarker(declaration.markers, 'kubebuilder:subresource:status') !== undefined;
  const apiVersion = `${kind.group}/${version.version}`;

  const scoped = scalable ? `ScalableResourceClient<${T}>` : `ResourceClient<${T}>`;
  const clientType = namespaced
    ? scalable
      ? `NamespacedResourceClient<${T}, ${scoped}>`
      : `NamespacedResourceClient<${T}>`
    : scoped;
  const factory = namespaced
    ? scalable
      ? 'namespacedScalableResource'
      : 'namespacedResource'
    : scalable
      ? 'clusterScalableResource'
      : 'clusterResource';
  // Only the types the file names: a namespaced, unscalable client never spells ResourceClient.
  const runtimeTypes = ['NamespacedResourceClient', 'ResourceClient', 'ScalableResourceClient']
    .filter((name) => new RegExp(`\\b${name}<`).test(clientType))
    .concat('RestClient', 'ResourceType')
    .sort();

  const notes = [
    namespaced
      ? '`inNamespace(ns)` scopes reads and writes; `list`/`watch` on the client span all namespaces.'
      : 'Cluster-scoped: no namespace.',
    hasStatus
      ? '`updateStatus`/`patchStatus` write the status subresource.'
      : 'The CRD declares no status subresource: `update` writes status too and `updateStatus` is refused by the server.',
    scalable ? '`getScale`/`updateScale` use the scale subresource.' : undefined,
  ].filter((n): n is string => n !== undefined);

  const content = [
    `// ${GENERATED_HEADER}`,
    `// Typed client for ${T} (${apiVersion}), from ${declaration.file}.`,
    '',
    `import { ${factory}, ${runtimeTypes.map((n) => `type ${n}`).join(', ')} } from '${RUNTIME_MODULE}';`,
    `import type { ${T} } from '${typesModule}';`,
    '',
    `/** ${T} (${apiVersion}): the descriptor the manager's client, \`for()\`, \`owns()\` and \`watches()\` take. */`,
    `export const ${descriptorNameOf(T)}: ResourceType<${T}> = {`,
    `  group: '${kind.group}',`,
    `  version: '${version.version}',`,
    `  kind: '${T}',`,
    `  listKind: '${T}List',`,
    `  resource: '${kind.plural}',`,
    `  namespaced: ${namespaced},`,
    '};',
    '',
    `/** The client type returned by {@link ${base}Client}. */`,
    `export type ${T}Client = ${clientType};`,
    '',
    '/**',
    ` * Typed client for ${T} (${apiVersion}).`,
    ...notes.map((n) => ` * ${n}`),
    ' */',
    `export function ${base}Client(rest: RestClient): ${T}Client {`,
    `  return ${factory}(rest, ${descriptorNameOf(T)});`,
    '}',
    '',
  ].join('\n');
  return { path: file, content };
}
