// +groupName=rules.example.com
// +versionName=v1

import type { int32, ObjectMeta } from 'kop/api';

/**
 * Source names exactly one place to read from.
 * +kubebuilder:validation:ExactlyOneOf=configMap;secret
 * +kubebuilder:validation:AtMostOneOf=secret;inline
 * +kubebuilder:validation:AtLeastOneOf=configMap;inline
 * +kubebuilder:validation:XValidation:rule="!has(self.inline) || self.inline.size() < 100",message="inline data is limited",reason=FieldValueInvalid
 */
export interface Source {
  configMap?: string;
  secret?: string;
  inline?: string;
  /**
   * Key is set once.
   * +k8s:immutable
   */
  key?: string;
}

/**
 * RuleSpec shows CEL validation.
 * +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas",fieldPath=".minReplicas"
 */
export interface RuleSpec {
  minReplicas: int32;
  maxReplicas: int32;
  /**
   * Source of the data.
   * +kubebuilder:validation:XValidation:rule="!has(self.secret) || self.secret.startsWith('s-')",messageExpression="'secret must start with s-, got ' + self.secret"
   */
  source?: Source;
  /**
   * ClusterName cannot change after creation.
   * +k8s:immutable
   * +required
   */
  clusterName: string;
  /**
   * Zone may be set once and not changed.
   * +k8s:immutable
   */
  zone?: string;
  /**
   * Threshold may only grow.
   * +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self >= oldSelf.value()",message="threshold may only grow",optionalOldSelf=true
   */
  threshold?: int32;
  /**
   * Hosts must each be lower case.
   * +kubebuilder:validation:items:XValidation:rule="self == self.lowerAscii()",message="hosts must be lower case"
   * +kubebuilder:validation:XValidation:rule="self.size() <= 10",message="at most 10 hosts"
   * +kubebuilder:validation:MaxItems=20
   * +kubebuilder:validation:items:MaxLength=253
   */
  hosts?: string[];
}

/**
 * Rule is a kind with CEL rules.
 * +kubebuilder:object:root=true
 * +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 40",message="name is too long"
 */
export interface Rule {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: RuleSpec;
}
