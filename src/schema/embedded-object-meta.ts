/**
 * controller-gen's `crd:generateEmbeddedObjectMeta`: object metadata embedded below a kind's root
 * (a PodTemplateSpec's or JobTemplateSpec's `metadata`, or `metadata: ObjectMeta` in a type of
 * the user's) gets the properties the apiserver keeps there — name, namespace, labels,
 * annotations, finalizers — instead of a bare `type: object`, whose contents it would prune.
 * The root's own metadata stays `type: object` (topLevelMetadata), as controller-gen leaves it.
 */
import type { JSONSchemaProps } from './json-schema.js';

/** The properties controller-gen gives embedded ObjectMeta with the option, in its words. */
function embeddedProperties(): Record<string, JSONSchemaProps> {
  const stringMap = (): JSONSchemaProps => ({ additionalProperties: { type: 'string' }, type: 'object' });
  return {
    annotations: stringMap(),
    finalizers: { items: { type: 'string' }, type: 'array' },
    labels: stringMap(),
    name: { type: 'string' },
    namespace: { type: 'string' },
  };
}

/** True for ObjectMeta as the stored core types and kop/api give it: an object with no properties. */
function isBareObjectMeta(schema: JSONSchemaProps): boolean {
  return schema.type === 'object' && schema.properties === undefined && schema.additionalProperties === undefined;
}

/** ObjectMeta's schema with the option on: the bare object with its embedded properties. */
export function embeddedObjectMetaSchema(schema: JSONSchemaProps): JSONSchemaProps {
  return { ...schema, properties: embeddedProperties() };
}

/**
 * A core type's schema with every embedded ObjectMeta filled in: in the core types, a `metadata`
 * property that is a bare object is ObjectMeta (ListMeta has properties).
 */
export function withEmbeddedObjectMeta(schema: JSONSchemaProps): JSONSchemaProps {
  const walk = (node: JSONSchemaProps): JSONSchemaProps => {
    const out: JSONSchemaProps = { ...node };
    if (node.properties) {
      out.properties = Object.fromEntries(
        Object.entries(node.properties).map(([key, child]) => [
          key,
          key === 'metadata' && isBareObjectMeta(child) ? embeddedObjectMetaSchema(child) : walk(child),
        ]),
      );
    }
    if (node.items) out.items = walk(node.items);
    if (typeof node.additionalProperties === 'object') out.additionalProperties = walk(node.additionalProperties);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) if (node[key]) out[key] = node[key]!.map(walk);
    return out;
  };
  return walk(schema);
}
