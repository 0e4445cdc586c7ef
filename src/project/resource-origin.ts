/**
 * Where a kind comes from, read from PROJECT's `core`, `external`, `path` and `module` keys in
 * this one place. Light (no kop/runtime descriptors), so flag tables can use it; the lookup of a
 * kind the command line names is resource-model.ts.
 */
import type { BuiltinKind } from './builtin-kinds.js';
import type { ProjectResource } from './project-file.js';

/**
 * Where a kind comes from, with the path its types are read from:
 * - `own`: this project's kind (`kop create api`, or `kop import crd --own`): types under api/, CRD generated here;
 * - `imported`: another project's kind whose types `kop import crd` (or `--external-api-module <crd or Go module>`,
 *   recorded as `module`) wrote under api/; its CRD is never generated here;
 * - `package`: another project's kind whose type and descriptor a module of an npm package exports
 *   (`--external-api-path <module>`, `module` the npm spec when `--external-api-module` added it);
 * - `builtin`: a kind built into Kubernetes (PROJECT's `core: true`): kop/api's type, kop/runtime's
 *   descriptor (`builtin`, when kop/runtime has one), `path` the Go package Kubebuilder records.
 */
export type ResourceOrigin =
  | { type: 'own'; path: string | undefined }
  | { type: 'imported'; path: string | undefined; module?: string }
  | { type: 'package'; path: string; module?: string }
  | { type: 'builtin'; path: string | undefined; builtin?: BuiltinKind };

/** The origin types, for messages and switches. */
export type ResourceOriginType = ResourceOrigin['type'];

/** Where a recorded kind comes from: PROJECT's `core`, `external`, `path` and `module` keys read in one place. */
export function originOf(entry: ProjectResource): ResourceOrigin {
  if (entry.core === true) return { type: 'builtin', path: entry.path };
  if (entry.external === true) {
    const module = entry.module === undefined ? {} : { module: entry.module };
    // kop import crd writes an external kind's types under api/; anything else is a module of an npm package.
    if (entry.path !== undefined && !entry.path.startsWith('api/'))
      return { type: 'package', path: entry.path, ...module };
    return { type: 'imported', path: entry.path, ...module };
  }
  return { type: 'own', path: entry.path };
}
