// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

// API types of crew.example.com/v1: every *.types.ts file in this folder.
// The marker below names the API group of all of them (kop generate manifests reads it).
// +groupName=crew.example.com

/** The API group of the types in this folder. */
export const GROUP = 'crew.example.com';

/** The API version of the types in this folder. */
export const VERSION = 'v1';

/** The `apiVersion` of objects of these types. */
export const API_VERSION = 'crew.example.com/v1';
