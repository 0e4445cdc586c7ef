import type { ListMeta, ObjectMeta } from '../../../api/index.js';

// Object metadata, list metadata and Status are kop/api's meta/v1 types (type-only imports: kop/runtime
// loads nothing from outside src/runtime at run time); this file adds what the client needs beside them.

/** Any Kubernetes object: what the object type of every descriptor (`ResourceType<T>`) must extend. */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** The body of every list response (`<Kind>List`). */
export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

/** An object whose shape the client does not know (dynamic client, unstructured data). */
export interface UnstructuredObject extends KubernetesObject {
  [field: string]: unknown;
}

/** autoscaling/v1 Scale, the body of the `scale` subresource. */
export interface Scale {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { replicas?: number };
  status?: { replicas: number; selector?: string };
}
