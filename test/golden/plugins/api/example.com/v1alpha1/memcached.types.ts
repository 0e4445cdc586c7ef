// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { Condition, ListMeta, ObjectMeta, int32 } from 'kop/api';

// The Memcached API of the deploy-image plugin: each Memcached runs memcached:1.6.26-alpine3.19 as a Deployment of
// spec.size replicas (src/controllers/memcached.controller.ts). `kop generate manifests` turns
// these interfaces into the CRD in config/crd/bases; marker lines in doc comments become validation.

/** MemcachedSpec is the state of a Memcached that its users ask for. */
export interface MemcachedSpec {
  /**
   * size is the number of pods the Memcached's Deployment runs.
   * +kubebuilder:validation:Minimum=1
   * +kubebuilder:validation:Maximum=3
   * +kubebuilder:default=1
   * +optional
   */
  size?: int32;
  /**
   * containerPort is the port the Memcached's container listens on.
   * +kubebuilder:validation:Minimum=1
   * +kubebuilder:validation:Maximum=65535
   * +kubebuilder:default=11211
   * +optional
   */
  containerPort?: int32;
}

/** MemcachedStatus is the state of a Memcached as its controller last observed it. */
export interface MemcachedStatus {
  /**
   * conditions describe the Memcached's Deployment: Available (its pods run), Progressing (a
   * rollout is under way) and Degraded (the controller could not do its work, or the Memcached
   * is being deleted), each True, False or Unknown.
   * +listType=map
   * +listMapKey=type
   * +optional
   */
  conditions?: Condition[];
}

/**
 * Memcached is the root type of the memcacheds.example.com.example.com API.
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
