// +groupName=paths.example.com
// +versionName=v1

import type { ObjectMeta } from 'kop/api';

/**
 * RouteSpec says which paths a Route serves. A star-slash ends a doc comment, so it is written
 * escaped: `/api/*\/v2` reads as the glob it is.
 */
export interface RouteSpec {
  /**
   * match is a glob such as `/static/*\/index.html`; kop reads `*\/` as a star-slash.
   * +kubebuilder:default="/static/*\/index.html"
   * +kubebuilder:example="/docs/*\/latest"
   * +optional
   */
  match?: string;
  // A line comment holds a star-slash as it is, */ and *\/ alike.
  note?: string;
  /**
   * prefixes lists globs that must end in a star-slash.
   * +kubebuilder:validation:items:Pattern=`\*\/$`
   * +optional
   */
  prefixes?: string[];
}

/**
 * Route maps paths such as /docs/*\/latest to a backend.
 * +kubebuilder:object:root=true
 */
export interface Route {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: RouteSpec;
}
