/**
 * Which subtrees of an imported schema are a kop/api core type (PodSpec, Container,
 * Condition, LabelSelector, Quantity, ...): exactly the schema `kop generate manifests` gives a
 * field of that type, description aside (a field's doc replaces its type's). Such subtrees
 * become a reference to the kop/api type instead of a copy of it; anything else (another
 * Kubernetes version's PodSpec, say) is written out in full.
 */
import { coreTypeNames, coreTypeSchema } from '../schema/index.js';
import type { JSONSchemaProps } from '../schema/index.js';

/** Scalars kop maps by their own rules (int32, Time, ...), and ObjectMeta, whose schema is a bare `type: object`. */
const NOT_REUSED = new Set(['int', 'int32', 'int64', 'Time', 'MicroTime', 'Duration', 'ObjectMeta']);

/**
 * Keywords a field may add over its named type (markers on the field, flattened over the type's
 * schema as controller-gen flattens): a subtree with them is still the core type, plus markers.
 */
const FIELD_LAYER_KEYS = [
  'default',
  'example',
  'nullable',
  'title',
  'externalDocs',
  'x-kubernetes-validations',
] as const;

/** A core type a subtree matches. */
export interface CoreTypeMatch {
  name: string;
  /** The type's own description, which the schema keeps when the field has no doc. */
  description: string | undefined;
  /** The subtree's keywords beyond the type's schema, which the field carries as markers. */
  layer: Record<string, unknown>;
}

/** A core type's shape entry: its name, its own description and the keywords of its schema. */
interface ShapeEntry {
  name: string;
  description: string | undefined;
  keys: Set<string>;
}

/**
 * The core types keyed by shape, and the interned texts those keys stand for: the same for every
 * index of this process (the stored schemas do not change), and keying every core type's whole
 * schema is most of an import's time, so it is done once.
 */
let coreShapes:
  { byShape: ReadonlyMap<string, readonly ShapeEntry[]>; interned: ReadonlyMap<string, string> } | undefined;

export class CoreTypeIndex {
  private readonly byShape: ReadonlyMap<string, readonly ShapeEntry[]>;
  private readonly canonical = new WeakMap<object, string>();
  /** Text of an object in terms of its children's ids -> its id. */
  private readonly interned: Map<string, string>;

  constructor() {
    if (coreShapes === undefined) {
      const byShape = new Map<string, ShapeEntry[]>();
      this.interned = new Map();
      for (const name of coreTypeNames()) {
        if (NOT_REUSED.has(name)) continue;
        const { description, ...shape } = coreTypeSchema(name)!;
        const key = this.key(shape);
        byShape.set(key, [...(byShape.get(key) ?? []), { name, description, keys: new Set(Object.keys(shape)) }]);
      }
      coreShapes = { byShape, interned: new Map(this.interned) };
    } else {
      // A copy: what this index interns of an imported schema stays with it, not with the process.
      this.interned = new Map(coreShapes.interned);
    }
    this.byShape = coreShapes.byShape;
  }

  /**
   * The core type whose schema `node` is, description aside; undefined when none is. When the
   * node has no description, only a type without one of its own matches (it would bring it).
   */
  match(node: JSONSchemaProps): CoreTypeMatch | undefined {
    if (
      node.properties === undefined &&
      node['x-kubernetes-int-or-string'] !== true &&
      node['x-kubernetes-preserve-unknown-fields'] !== true
    )
      return undefined;
    const { description, ...shape } = node;
    const layer: Record<string, unknown> = {};
    for (const key of FIELD_LAYER_KEYS) {
      if (shape[key] === undefined) continue;
      layer[key] = shape[key];
      delete shape[key];
    }
    const candidates = (this.byShape.get(this.key(shape)) ?? []).filter(
      (c) => !Object.keys(layer).some((key) => c.keys.has(key)),
    );
    const usable = description === undefined ? candidates.filter((c) => c.description === undefined) : candidates;
    const found = usable.find((c) => c.description === description) ?? usable[0];
    return found && { name: found.name, description: found.description, layer };
  }

  /**
   * A short key equal for equal values: objects and arrays are interned bottom-up (their key is
   * built from their children's ids, not their whole text), so keying every subtree of a large
   * schema costs its size once, not its size times its depth. Cached per node.
   */
  private key(value: unknown): string {
    if (typeof value !== 'object' || value === null) return JSON.stringify(value);
    const cached = this.canonical.get(value);
    if (cached !== undefined) return cached;
    const text = Array.isArray(value)
      ? `[${value.map((v) => this.key(v)).join(',')}]`
      : `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${this.key((value as Record<string, unknown>)[k])}`)
          .join(',')}}`;
    let id = this.interned.get(text);
    if (id === undefined) {
      id = `#${this.interned.size}`;
      this.interned.set(text, id);
    }
    this.canonical.set(value, id);
    return id;
  }
}
