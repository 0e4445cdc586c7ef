// +groupName=imports.example.com
// +versionName=v1

import type { ObjectMeta } from 'kop/api';
import type { Endpoint } from './shared/common.js';
import type * as shared from './shared/common.js';
import type { Target } from './shared/common.js';
import type { Backend, Endpoint as FromIndex } from './shared/index.js';

/** RouteSpec uses types of another file, imported in each way TypeScript allows. */
export interface RouteSpec {
  /** named import */
  primary: Endpoint;
  /** namespace import */
  secondary?: shared.Endpoint;
  /** a name the other file re-exports under an alias */
  target?: Target;
  /** export * from an index file */
  fromIndex?: FromIndex;
  /** export { X as Y } from another file */
  backend?: Backend;
}

/**
 * Route is a kind.
 * +kubebuilder:object:root=true
 */
export interface Route {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: RouteSpec;
}
