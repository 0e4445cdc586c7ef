// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { Condition, ListMeta, ObjectMeta } from 'kop/api';

// The interfaces below define the RedisCluster API. `kop generate manifests` turns them into the
// CRD in config/crd/bases: doc comments become descriptions, and marker lines such as
// `+kubebuilder:validation:Minimum=1` in a doc comment become validation. Run it after
// every change here.

/** RedisClusterSpec is the state of a RedisCluster that its users ask for. */
export interface RedisClusterSpec {
  /**
   * foo shows how a field is declared: replace it with the settings of a RedisCluster.
   * +optional
   */
  foo?: string;
}

/** RedisClusterStatus is the state of a RedisCluster as its controller last observed it. */
export interface RedisClusterStatus {
  /**
   * conditions describe the state of the RedisCluster, one entry per condition type
   * (for example "Available" or "Degraded"), each with status True, False or Unknown.
   * +listType=map
   * +listMapKey=type
   * +optional
   */
  conditions?: Condition[];
}

/**
 * RedisCluster is the root type of the redisclusters.cache.example.com API.
 * +kubebuilder:object:root=true
 * +kubebuilder:storageversion
 * +kubebuilder:subresource:status
 */
export interface RedisCluster {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ObjectMeta;
  /**
   * spec is the state of the RedisCluster that its users ask for.
   * +required
   */
  spec: RedisClusterSpec;
  /**
   * status is the state of the RedisCluster as its controller last observed it.
   * +optional
   */
  status?: RedisClusterStatus;
}

/**
 * RedisClusterList is what listing redisclusters returns.
 * +kubebuilder:object:root=true
 */
export interface RedisClusterList {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ListMeta;
  items: RedisCluster[];
}
