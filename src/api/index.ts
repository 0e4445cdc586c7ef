/**
 * `kop/api`: the types API files and controllers import. Everything here is a type, so
 * importing it costs nothing at run time; the descriptors of the built-in kinds
 * (`appsV1DeploymentType`, ...) are values and live in kop/runtime/builtin.
 *
 * The Kubernetes types are plain JSON shapes — what the API server sends and accepts
 * (timestamps are strings, quantities strings or numbers) — generated from the OpenAPI
 * of kube-apiserver by hack/gen-core-types.ts. `kop generate manifests` recognises these
 * names when they come from `kop/api` and gives each the schema controller-gen gives
 * the Go type of the same name.
 */
export type * from './scalars.js';
export type * from './generated/meta-v1.js';
export type * from './generated/core-v1.js';
export type * from './generated/apps-v1.js';
export type * from './generated/batch-v1.js';
export type * from './generated/events-v1.js';
export type * from './generated/coordination-v1.js';
