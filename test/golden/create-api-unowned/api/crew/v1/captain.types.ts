// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { Condition, ListMeta, ObjectMeta } from 'kop/api';

// The interfaces below define the Captain API. `kop generate manifests` turns them into the
// CRD in config/crd/bases: doc comments become descriptions, and marker lines such as
// `+kubebuilder:validation:Minimum=1` in a doc comment become validation. Run it after
// every change here.

/** CaptainSpec is the state of a Captain that its users ask for. */
export interface CaptainSpec {
  /**
   * foo shows how a field is declared: replace it with the settings of a Captain.
   * +optional
   */
  foo?: string;
}

/** CaptainStatus is the state of a Captain as its controller last observed it. */
export interface CaptainStatus {
  /**
   * conditions describe the state of the Captain, one entry per condition type
   * (for example "Available" or "Degraded"), each with status True, False or Unknown.
   * +listType=map
   * +listMapKey=type
   * +optional
   */
  conditions?: Condition[];
}

/**
 * Captain is the root type of the captains.crew.example.com API.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 */
export interface Captain {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ObjectMeta;
  /**
   * spec is the state of the Captain that its users ask for.
   * +required
   */
  spec: CaptainSpec;
  /**
   * status is the state of the Captain as its controller last observed it.
   * +optional
   */
  status?: CaptainStatus;
}

/**
 * CaptainList is what listing captains returns.
 * +kubebuilder:object:root=true
 */
export interface CaptainList {
  apiVersion?: string;
  kind?: string;
  /** +optional */
  metadata?: ListMeta;
  items: Captain[];
}
