// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { Condition, ListMeta, ObjectMeta, int32 } from 'kop/api';

// The Busybox API of the deploy-image plugin: each Busybox runs busybox:1.36.1 as a Deployment of
// spec.size replicas (src/controllers/busybox.controller.ts). `kop generate manifests` turns
// these interfaces into the CRD in config/crd/bases; marker lines in doc comments become validation.

/** BusyboxSpec is the state of a Busybox that its users ask for. */
export interface BusyboxSpec {
  /**
   * size is the number of pods the Busybox's Deployment runs.
   * +kubebuilder:validation:Minimum=1
   * +kubebuilder:validation:Maximum=3
   * +kubebuilder:default=1
   * +optional
   */
  size?: int32;
}

/** BusyboxStatus is the state of a Busybox as its controller last observed it. */
export interface BusyboxStatus {
  /**
   * conditions describe the Busybox's Deployment: Available (its pods run), Progressing (a
   * rollout is under way) and Degraded (the controller could not do its work, or the Busybox
   * is being deleted), each True, False or Unknown.
   * +listType=map
   * +listMapKey=type
   * +optional
   */
  conditions?: Condition[];
}

/**
 * Busybox is the root type of the busyboxes.example.com.example.com API.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 */
export interface Busybox {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ObjectMeta;
  /**
   * spec is the state of the Busybox that its users ask for.
   * +required
   */
  spec: BusyboxSpec;
  /**
   * status is the state of the Busybox as its controller last observed it.
   * +optional
   */
  status?: BusyboxStatus;
}

/**
 * BusyboxList is what listing busyboxes returns.
 * +kubebuilder:object:root=true
 */
export interface BusyboxList {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ListMeta;
  items: Busybox[];
}
