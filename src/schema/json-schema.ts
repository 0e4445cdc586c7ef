import type { JSONValue } from '../base/index.js';

/**
 * The subset of OpenAPI v3 that a CustomResourceDefinition's `openAPIV3Schema` carries
 * (Kubernetes' apiextensions/v1 JSONSchemaProps), with the `x-kubernetes-*` extensions.
 * Key names are the wire names, so a value serialises straight into the CRD.
 */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  default?: JSONValue;
  example?: JSONValue;
  enum?: JSONValue[];
  nullable?: boolean;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  $ref?: string;
  externalDocs?: { description?: string; url?: string };
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

/** One CEL rule of `x-kubernetes-validations`. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** A deep copy; schemas are shared between declarations and must not be mutated in place. */
export function cloneSchema<T>(value: T): T {
  return structuredClone(value);
}

/** True for `{}`: an object with no keys. */
export function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
