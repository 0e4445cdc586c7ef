// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

// API types of batch.tutorial.kubebuilder.io/v2: every *.types.ts file in this folder.
// The marker below names the API group of all of them (kop generate manifests reads it).
// +groupName=batch.tutorial.kubebuilder.io

/** The API group of the types in this folder. */
export const GROUP = 'batch.tutorial.kubebuilder.io';

/** The API version of the types in this folder. */
export const VERSION = 'v2';

/** The `apiVersion` of objects of these types. */
export const API_VERSION = 'batch.tutorial.kubebuilder.io/v2';
