/**
 * Well-known value types of Kubernetes APIs. `kop generate manifests` recognises these
 * names when they are imported from `kop/api` and gives them the schema controller-gen
 * gives their Go counterparts, so a field's TypeScript type says what the CRD allows.
 */

/**
 * An integer of the platform's size: schema `type: integer` with no format (Go `int`), as many
 * published CRDs declare counts and ports. Prefer int32 or int64 in new APIs.
 */
export type int = number;

/** A 32-bit integer: schema `type: integer, format: int32` (Go `int32`). */
export type int32 = number;

/**
 * A 64-bit integer: schema `type: integer, format: int64` (Go `int64`). JavaScript numbers
 * hold integers exactly up to 2^53; Kubernetes values (sizes, generations) stay below that.
 */
export type int64 = number;

/**
 * A resource amount such as `500m`, `2Gi` or `3`: schema int-or-string with the quantity
 * pattern (Go `resource.Quantity`). The server returns the canonical string form; a number
 * is accepted on input.
 */
export type Quantity = string | number;

/** A number or a string, e.g. a port number or name, or `25%` (Go `intstr.IntOrString`). */
export type IntOrString = number | string;

/** A timestamp in RFC 3339 form, e.g. `2024-01-02T03:04:05Z` (Go `metav1.Time`). */
export type Time = string;

/** A timestamp in RFC 3339 form with microseconds (Go `metav1.MicroTime`). */
export type MicroTime = string;

/** A duration in Go's `time.Duration` string form, e.g. `1h30m`, `10s` (Go `metav1.Duration`). */
export type Duration = string;

/** Any JSON value. */
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

/** A JSON object with unknown keys. */
export type JSONObject = { [key: string]: JSONValue };

/**
 * Arbitrary JSON the API server keeps as given: schema `x-kubernetes-preserve-unknown-fields`
 * (Go `apiextensionsv1.JSON`). Import it type-only: the name shadows the global `JSON`.
 */
export type JSON = JSONValue;

/**
 * An embedded object of any kind, usually a Kubernetes object with `apiVersion` and `kind`:
 * schema `type: object` with `x-kubernetes-preserve-unknown-fields` (Go `runtime.RawExtension`).
 */
export type RawExtension = JSONObject;
