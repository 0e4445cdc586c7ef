// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

// API types of example.com.example.com/v1alpha1: every *.types.ts file in this folder.
// The marker below names the API group of all of them (kop generate manifests reads it).
// +groupName=example.com.example.com

/** The API group of the types in this folder. */
export const GROUP = 'example.com.example.com';

/** The API version of the types in this folder. */
export const VERSION = 'v1alpha1';

/** The `apiVersion` of objects of these types. */
export const API_VERSION = 'example.com.example.com/v1alpha1';
