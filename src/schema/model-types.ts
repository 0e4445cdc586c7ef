/**
 * The model of the API types: what the schema pipeline's first stages build (model.ts, with
 * comments.ts and kinds.ts) and its later stages read (to-openapi.ts, crd.ts, the typed clients).
 */
import type { SchemaError, SourceLocation } from './errors.js';
import type { Marker } from '../markers/index.js';
import type { ProjectFile } from '../project/index.js';

/** A property's or alias's type, resolved syntactically. `text` is the type as written. */
export type TypeRef =
  | { kind: 'string'; text: string }
  | { kind: 'boolean'; text: string }
  /** TypeScript `number` (a float; see to-openapi.ts) */
  | { kind: 'number'; text: string }
  /** A name imported from kop/api: `int32`, `Quantity`, `PodTemplateSpec`, ... */
  | { kind: 'wellKnown'; name: string; text: string }
  /** A union of literals, e.g. `'a' | 'b'`; a single literal type is a one-value enum. */
  | { kind: 'enum'; values: (string | number | boolean)[]; text: string }
  | { kind: 'array'; items: TypeRef; text: string }
  /** `Record<string, T>` or `{ [key: string]: T }` */
  | { kind: 'map'; values: TypeRef; text: string }
  /** A named interface or type alias declared in the API files or a relatively imported file. */
  | { kind: 'reference'; name: string; target: TypeDeclaration; text: string }
  /** An inline type literal `{ a: string }`. */
  | { kind: 'object'; fields: FieldModel[]; text: string }
  | { kind: 'intersection'; members: TypeRef[]; text: string }
  /** Any other union; not representable in a structural schema. */
  | { kind: 'union'; members: TypeRef[]; text: string }
  /** `any` or `unknown`. */
  | { kind: 'untyped'; text: string }
  /** A name that is neither declared, relatively imported nor from kop/api, or an unsupported type form. */
  | { kind: 'unresolved'; text: string; reason: string; fix?: string };

/** One property of an interface or type literal. */
export interface FieldModel {
  /** The JSON name (the property name as written). */
  name: string;
  type: TypeRef;
  /** Written with `?`: the Go equivalent has `omitempty`. */
  optional: boolean;
  /** Doc comment with marker lines removed; '' when none. */
  doc: string;
  markers: Marker[];
  location: SourceLocation;
}

/** A named interface or type alias. */
export interface TypeDeclaration {
  name: string;
  declarationKind: 'interface' | 'alias';
  /** Project-relative path of the declaring file. */
  file: string;
  location: SourceLocation;
  doc: string;
  markers: Marker[];
  /** Own properties of an interface (inherited ones are in `extends`). */
  fields: FieldModel[];
  /** `interface X extends A, B`. */
  extends: TypeRef[];
  /** The aliased type of `type X = ...`. */
  aliasOf?: TypeRef;
  exported: boolean;
}

/** One API group version: the TypeScript files of one `api/<group>/<version>/` directory. */
export interface ApiPackage {
  /** Full API group, e.g. `cache.example.com`. */
  group: string;
  version: string;
  /** Project-relative directory. */
  dir: string;
  files: string[];
  /** Package-level markers (`+groupName`, `+versionName`, default `+kubebuilder:validation:Optional`). */
  markers: Marker[];
  /** Declarations of the package's files, by name. */
  declarations: Map<string, TypeDeclaration>;
  /** Fields are optional unless marked required (`+kubebuilder:validation:Optional` at package level). */
  defaultOptional: boolean;
}

/** One version of a kind: its root declaration in one package. */
export interface ApiKindVersion {
  version: string;
  package: ApiPackage;
  /** The root type (`+kubebuilder:object:root=true`, with `metadata: ObjectMeta`). */
  declaration: TypeDeclaration;
  /** Absent for a kind without one (a ConfigMap-like kind with `data`, one with only `status`), as controller-gen allows. */
  spec?: FieldModel;
  status?: FieldModel;
  /** All fields of the root type, inherited included (apiVersion, kind, metadata, spec, status, ...). */
  fields: FieldModel[];
  storage: boolean;
  served: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  /** `+kubebuilder:skipversion`: left out of the CRD (still in the model for clients). */
  skipped: boolean;
}

/** A custom resource kind across its versions: one CRD. */
export interface ApiKind {
  group: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  scope: 'Namespaced' | 'Cluster';
  shortNames: string[];
  categories: string[];
  /** Sorted by Kubernetes version priority (GA > beta > alpha, then number), highest first. */
  versions: ApiKindVersion[];
}

/** Everything `kop generate` knows about the project's API types. */
export interface ApiModel {
  /** Absolute project root. */
  root: string;
  packages: ApiPackage[];
  /** Sorted by group, then kind. */
  kinds: ApiKind[];
  /** Looks up a declaration by project-relative file and name (for generators that follow references). */
  declaration(file: string, name: string): TypeDeclaration | undefined;
  /**
   * With `collectProblems`, the problems found in fields and declarations, left out of the model
   * so that later stages can find theirs too and one run reports them all; empty otherwise.
   */
  problems: readonly SchemaError[];
}

export interface LoadApiModelOptions {
  /** The parsed PROJECT file: supplies group (when a package has no +groupName), plural and scope fallbacks. */
  project?: ProjectFile;
  /** Parse exactly these absolute files instead of walking `<root>/api`. */
  files?: string[];
  /** Texts of files by absolute path, read instead of the disk (files not written yet). */
  sources?: ReadonlyMap<string, string>;
  /**
   * Keep going past problems in fields and declarations and hand them over in `model.problems`
   * (the CRD generator reports them with its own); by default the first is thrown.
   */
  collectProblems?: boolean;
}
