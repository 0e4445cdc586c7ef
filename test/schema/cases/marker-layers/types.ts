// +groupName=layers.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

/**
 * Name is a shared name.
 * +kubebuilder:validation:MaxLength=10
 */
export type Name = string;

/**
 * Mode is an enum type.
 * +kubebuilder:validation:Enum=a;b
 */
export type Mode = string;

/**
 * ShortName narrows Name.
 * +kubebuilder:validation:MaxLength=5
 * +kubebuilder:validation:MinLength=1
 */
export type ShortName = Name;

/** PlainName is Name under another name. */
export type PlainName = Name;

/**
 * OnlyA narrows Mode.
 * +kubebuilder:validation:Enum=a
 */
export type OnlyA = Mode;

/**
 * ShortNames is a list.
 * +kubebuilder:validation:MaxItems=3
 */
export type ShortNames = ShortName[];

/** Inner is a struct. */
export interface Inner {
  a?: string;
}

/**
 * Item has a rule.
 * +kubebuilder:validation:XValidation:rule="has(self.a)",message="type rule"
 */
export interface Item {
  a?: string;
}

/** Base has fields. */
export interface Base {
  /** base doc */
  shared?: string;
  baseOnly?: int32;
}

/** LayeredSpec layers field markers over the markers of named types. */
export interface LayeredSpec extends Base {
  /**
   * first name.
   * +kubebuilder:validation:MinLength=2
   */
  first?: Name;
  second?: Name;
  /** +kubebuilder:validation:MaxLength=5 */
  third?: Name;
  mode?: Mode;
  /** +kubebuilder:validation:Enum=b */
  mode2?: Mode;
  /** +kubebuilder:validation:items:MaxItems=3 */
  nested?: string[][];
  mapOfArrays?: Record<string, string[]>;
  /** +nullable */
  nullStruct?: Inner;
  /** +nullable */
  nullMap?: Record<string, string>;
  /** +nullable */
  nullArray?: string[];
  /**
   * +optional
   * +kubebuilder:default=5
   */
  optDefault?: int32;
  /** +kubebuilder:default=7 */
  reqDefault: int32;
  /** +kubebuilder:validation:Type=string */
  typed?: int32;
  /**
   * +kubebuilder:title=Hello
   * +kubebuilder:externalDocs:url="https://x.example.com",description=more
   */
  titled?: string;
  /** +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self == oldSelf.value()",message="immutable once set",optionalOldSelf=true */
  cel?: string;
  /** +kubebuilder:pruning:PreserveUnknownFields */
  preserved?: Inner;
  /**
   * +kubebuilder:validation:Schemaless
   * +kubebuilder:pruning:PreserveUnknownFields
   */
  schemaless?: Inner;
  /** +kubebuilder:validation:items:Enum=x;y */
  itemsEnum?: Mode[];
  /** +kubebuilder:validation:items:MaxLength=5 */
  itemsMax?: Name[];
  /** +kubebuilder:validation:items:MinLength=2 */
  itemsMin?: Name[];
  /** +kubebuilder:validation:items:XValidation:rule="has(self.a) || true",message="field rule" */
  itemsRule?: Item[];
  /** +kubebuilder:validation:items:Format=email */
  itemsFormat?: Name[];
  shortName?: ShortName;
  plainName?: PlainName;
  onlyA?: OnlyA;
  shortNames?: ShortNames;
}

/**
 * Layered is a kind.
 * +kubebuilder:object:root=true
 * +kubebuilder:resource:shortName=zz;aa,categories=zeta;alpha
 * +kubebuilder:printcolumn:name=Zed,type=string,JSONPath=.spec.first,priority=1
 * +kubebuilder:printcolumn:name=Age,type=date,JSONPath=.metadata.creationTimestamp
 * +kubebuilder:printcolumn:name=Num,type=integer,JSONPath=.spec.baseOnly,format=int32,description=the num
 */
export interface Layered {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: LayeredSpec;
}
