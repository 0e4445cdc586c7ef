/**
 * The few object and list fields the client itself reads. Kept minimal and structural so that
 * any full type (kop/api's ObjectMeta, a user's CRD type) satisfies it without importing it.
 */
export interface ObjectMetaFields {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  finalizers?: string[];
}

/** Any Kubernetes object: what every typed client's object type must extend. */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMetaFields;
}

/** List metadata: the resourceVersion to watch from and the token of the next page. */
export interface ListMetaFields {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

/** The body of every list response (`<Kind>List`). */
export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMetaFields;
  items: T[];
}

/** A field-level reason inside a Status (`details.causes`). */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** Extra data the apiserver attaches to a failure Status. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** The apiserver's meta/v1 Status, as sent with every failed request. */
export interface Status {
  apiVersion?: string;
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- the literals name the values the apiserver sends
  kind?: 'Status' | string;
  metadata?: ListMetaFields;
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- the literals name the values the apiserver sends
  status?: 'Success' | 'Failure' | string;
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** An object whose shape the client does not know (dynamic client, unstructured data). */
export interface UnstructuredObject extends KubernetesObject {
  [field: string]: unknown;
}

/** autoscaling/v1 Scale, the body of the `scale` subresource. */
export interface Scale {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMetaFields;
  spec?: { replicas?: number };
  status?: { replicas: number; selector?: string };
}
