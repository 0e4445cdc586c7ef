/**
 * The output of the schema-to-types stage and the input of the renderer: TypeScript
 * declarations with their doc comments and marker lines, in kop's dialect (what
 * `kop create api` scaffolds and `kop generate manifests` reads).
 */

/** One property of an interface. */
export interface FieldDeclaration {
  /** The JSON name. */
  name: string;
  /** The TypeScript type as written, e.g. `int32`, `FooSpecBar[]`, `'a' | 'b'`. */
  type: string;
  optional: boolean;
  /** The doc comment (the schema's description); '' for none. */
  doc: string;
  /** Marker lines, each starting with `+`. */
  markers: string[];
}

/** An exported interface or type alias. */
export interface TypeDeclaration {
  name: string;
  kind: 'interface' | 'alias';
  doc: string;
  markers: string[];
  /** The properties of an interface. */
  fields: FieldDeclaration[];
  /** The aliased type of an alias. */
  aliasOf?: string;
}

/** The declarations of one version of a kind, and what they import from kop/api. */
export interface KindTypes {
  kind: string;
  declarations: TypeDeclaration[];
  /** kop/api names the declarations use -> the local name they use them by (an alias when a declaration has the name). */
  imports: Map<string, string>;
  /** Some field is a float (`type: number`): `kop generate` needs --allow-dangerous-types for it. */
  usesFloats: boolean;
  /** Some subtree is kept verbatim with +kop:schema (--raw-schema). */
  verbatimPaths: string[];
}
