// +groupName=settings.example.com
// +versionName=v1

import type { Condition, ListMeta, ObjectMeta } from 'kop/api';

/**
 * Setting holds plain key-value data, as a ConfigMap does: a kind needs no spec.
 * +kubebuilder:object:root=true
 */
export interface Setting {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  /** data maps keys to values. */
  data?: Record<string, string>;
  immutable?: boolean;
}

/** ProbeStatus is what a prober last saw. */
export interface ProbeStatus {
  /** +optional */
  conditions?: Condition[];
}

/**
 * Probe has only a status, which a controller writes.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 * +kubebuilder:resource:scope=Cluster
 */
export interface Probe {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  status?: ProbeStatus;
}

/**
 * SettingList is a list of Setting.
 * +kubebuilder:object:root=true
 */
export interface SettingList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: Setting[];
}

/**
 * ProbeList is a list of Probe.
 * +kubebuilder:object:root=true
 */
export interface ProbeList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: Probe[];
}
