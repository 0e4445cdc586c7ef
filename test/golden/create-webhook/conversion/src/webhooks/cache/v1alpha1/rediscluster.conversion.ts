// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { Manager } from 'kop/runtime';
import type { PartialObject } from 'kop/runtime/webhook';
import { redisClusterType as hubType } from '../../../../api/cache/v1/rediscluster.client.js';
import type { RedisCluster as Hub } from '../../../../api/cache/v1/rediscluster.types.js';
import { redisClusterType as spokeType } from '../../../../api/cache/v1alpha1/rediscluster.client.js';
import type { RedisCluster as Spoke } from '../../../../api/cache/v1alpha1/rediscluster.types.js';

// Conversion between RedisCluster v1alpha1 (this spoke) and v1 (the hub, the version etcd
// stores): the apiserver calls the manager's /convert endpoint whenever a client reads or writes
// v1alpha1. Every spoke converts to and from the hub only, so n versions need 2(n-1) functions.
//
// Each must keep every field: an object written as v1alpha1, stored as v1 and read back as
// v1alpha1 must be unchanged, and so must a v1 object read as v1alpha1 and written back.
// What one version has no field for travels in an annotation (HUB_FIELDS below);
// test/conversions/cache/v1alpha1/rediscluster.round-trip.test.ts checks both ways on
// generated objects.
//
// The objects are PartialObject<...>: for server-side apply the apiserver also converts pruned
// objects, with any field missing (no spec, even no metadata), so never assume a field is there.
// The runtime gives every answer the input's metadata; only labels and annotations you set count.

const HUB_API_VERSION = 'cache.example.com/v1';
const SPOKE_API_VERSION = 'cache.example.com/v1alpha1';

/** Where v1's fields that v1alpha1 cannot hold are kept on a v1alpha1 object, as JSON. */
const HUB_FIELDS = 'cache.example.com/v1-fields';

/** v1alpha1 → v1. Fields that mean the same in both versions carry over; map the others here. */
export function convertTo(spoke: PartialObject<Spoke>): PartialObject<Hub> {
  const { annotations, kept } = takeKept(spoke.metadata?.annotations);
  // What convertFrom kept goes back in place. `annotations: undefined` removes them (a key left out keeps the input's).
  const hub = mergeKept({ ...spoke, apiVersion: HUB_API_VERSION }, kept) as PartialObject<Hub>;
  return { ...hub, metadata: { ...spoke.metadata, annotations } };
}

/** v1 → v1alpha1. The inverse of convertTo. */
export function convertFrom(hub: PartialObject<Hub>): PartialObject<Spoke> {
  // The hub's fields v1alpha1 has no place for, to keep: e.g. `{ spec: { newField: hub.spec?.newField } }`
  // (remove them from the spoke object below). The two versions have the same fields now.
  const kept: Kept = {};
  const spoke: PartialObject<Spoke> = { ...hub, apiVersion: SPOKE_API_VERSION };
  return { ...spoke, metadata: { ...hub.metadata, annotations: keep(hub.metadata?.annotations, kept) } };
}

/** The hub's fields a spoke object carries for the way back. */
type Kept = Record<string, unknown>;

function keep(annotations: Record<string, string> | undefined, kept: Kept): Record<string, string> | undefined {
  const rest = { ...annotations };
  delete rest[HUB_FIELDS];
  if (Object.keys(kept).length > 0) rest[HUB_FIELDS] = JSON.stringify(kept);
  return Object.keys(rest).length > 0 ? rest : undefined;
}

function takeKept(annotations: Record<string, string> | undefined): {
  annotations: Record<string, string> | undefined;
  kept: Kept;
} {
  const { [HUB_FIELDS]: json, ...rest } = annotations ?? {};
  return {
    annotations: Object.keys(rest).length > 0 ? rest : undefined,
    kept: json !== undefined ? (JSON.parse(json) as Kept) : {},
  };
}

/** `kept` merged into `object`, objects field by field, anything else replaced. */
function mergeKept(object: Record<string, unknown>, kept: Kept): Record<string, unknown> {
  const merged = { ...object };
  for (const [key, value] of Object.entries(kept)) {
    if (value === undefined) continue;
    const current = merged[key];
    merged[key] = isPlainObject(current) && isPlainObject(value) ? mergeKept(current, value) : value;
  }
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Registers the conversion: the manager serves it on /convert. */
export function setupRedisClusterV1alpha1Conversion(manager: Manager): void {
  manager.conversion(hubType).spoke(spokeType, { convertTo, convertFrom }).complete();
}
