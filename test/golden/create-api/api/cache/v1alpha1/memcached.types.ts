// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { Condition, ListMeta, ObjectMeta } from 'kop/api';

// The interfaces below define the Memcached API. `kop generate manifests` turns them into the
// CRD in config/crd/bases: doc comments become descriptions, and marker lines such as
// `+kubebuilder:validation:Minimum=1` in a doc comment become validation. Run it after
// every change here.

/** MemcachedSpec is the state of a Memcached that its users ask for. */
export interface MemcachedSpec {
  /**
   * foo shows how a field is declared: replace it with the settings of a Memcached.
   * +optional
   */
  foo?: string;
}

/** MemcachedStatus is the state of a Memcached as its controller last observed it. */
export interface MemcachedStatus {
  /**
   * conditions describe the state of the Memcached, one entry per condition type
   * (for example "Available" or "Degraded"), each with status True, False or Unknown.
   * +listType=map
   * +listMapKey=type
   * +optional
   */
  conditions?: Condition[];
}

/**
 * Memcached is the root type of the memcacheds.cache.example.com API.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 */
export interface Memcached {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ObjectMeta;
  /**
   * spec is the state of the Memcached that its users ask for.
   * +required
   */
  spec: MemcachedSpec;
  /**
   * status is the state of the Memcached as its controller last observed it.
   * +optional
   */
  status?: MemcachedStatus;
}

/**
 * MemcachedList is what listing memcacheds returns.
 * +kubebuilder:object:root=true
 */
export interface MemcachedList {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ListMeta;
  items: Memcached[];
}
