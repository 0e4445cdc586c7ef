// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import type { Manager } from 'kop/runtime';
import type { PartialObject } from 'kop/runtime/webhook';
import { cronJobType as hubType } from '../../../../api/batch/v1/cronjob.client.js';
import type { CronJob as Hub } from '../../../../api/batch/v1/cronjob.types.js';
import { cronJobType as spokeType } from '../../../../api/batch/v2/cronjob.client.js';
import type { CronSchedule, CronJob as Spoke } from '../../../../api/batch/v2/cronjob.types.js';

// Conversion between CronJob v2 (this spoke) and v1 (the hub, the version etcd stores): the
// apiserver calls the manager's /convert endpoint whenever a client reads or writes v2. Every
// spoke converts to and from the hub only, so n versions need 2(n-1) functions.
//
// Each must keep every field both ways. Most schedules map exactly, but not all: a macro
// ("@hourly") has no v2 spelling, and a v2 field written as "*" reads back as left out. What a
// version cannot spell travels in an annotation, and the generated round-trip test
// (test/conversions/batch/v2/cronjob.round-trip.test.ts) checks both ways on generated objects.
//
// The objects are partial: for server-side apply the apiserver also converts pruned objects, with
// any field missing (no spec, even no metadata), so nothing here assumes a field is there.

const HUB_API_VERSION = 'batch.tutorial.kubebuilder.io/v1';
const SPOKE_API_VERSION = 'batch.tutorial.kubebuilder.io/v2';
/** On a v2 object: the v1 schedule line, when the v2 fields alone would not give it back. */
const V1_SCHEDULE = 'batch.tutorial.kubebuilder.io/v1-schedule';
/** On a v1 object: the v2 schedule, as JSON, when the cron line alone would not give it back. */
const V2_SCHEDULE = 'batch.tutorial.kubebuilder.io/v2-schedule';

// #region convertTo
/** v2 → v1: the schedule's fields joined into one cron line; a field left out is "*". */
export function convertTo(spoke: PartialObject<Spoke>): PartialObject<Hub> {
  const { [V1_SCHEDULE]: v1Line, ...annotations } = spoke.metadata?.annotations ?? {};
  const { spec, ...object } = spoke;
  const hub: PartialObject<Hub> = { ...object, apiVersion: HUB_API_VERSION };
  if (spec !== undefined) {
    const { schedule, ...rest } = spec;
    hub.spec = rest;
    if (schedule !== undefined) {
      // The line this object was read from, while its fields still say the same.
      const line = v1Line !== undefined && sameSchedule(toFields(v1Line), schedule) ? v1Line : toLine(schedule);
      if (!sameSchedule(toFields(line), schedule)) annotations[V2_SCHEDULE] = JSON.stringify(schedule);
      hub.spec = { ...rest, schedule: line };
    }
  }
  return { ...hub, metadata: { ...spoke.metadata, annotations: orNone(annotations) } };
}
// #endregion convertTo

// #region convertFrom
/**
 * v1 → v2: the cron line split into its five fields, a "*" left out. A macro becomes the fields
 * it stands for ("@hourly" is minute 0), so a v2 client sees the same schedule.
 */
export function convertFrom(hub: PartialObject<Hub>): PartialObject<Spoke> {
  const { [V2_SCHEDULE]: v2Json, ...annotations } = hub.metadata?.annotations ?? {};
  const { spec, ...object } = hub;
  const spoke: PartialObject<Spoke> = { ...object, apiVersion: SPOKE_API_VERSION };
  if (spec !== undefined) {
    const { schedule: line, ...rest } = spec;
    spoke.spec = rest;
    if (line !== undefined) {
      // The v2 fields this object was written with, while they still say the same line.
      const kept = v2Json !== undefined ? parseSchedule(v2Json) : undefined;
      const schedule = kept !== undefined && toLine(kept) === line ? kept : toFields(line);
      if (toLine(schedule) !== line) annotations[V1_SCHEDULE] = line;
      spoke.spec = { ...rest, schedule };
    }
  }
  return { ...spoke, metadata: { ...hub.metadata, annotations: orNone(annotations) } };
}

/**
 * The cron line's five fields, "*" left out. A line that is not five fields (the v1 validator
 * refuses one, but a conversion must never throw) has none: it travels in the annotation.
 */
function toFields(line: string): CronSchedule {
  const trimmed = line.trim();
  const fields = (Object.hasOwn(MACROS, trimmed) ? MACROS[trimmed] : trimmed).split(/\s+/);
  if (fields.length !== 5) return {};
  const schedule: CronSchedule = {};
  FIELDS.forEach((field, i) => {
    if (fields[i] !== '*') schedule[field] = fields[i];
  });
  return schedule;
}
// #endregion convertFrom

/** The v2 schedule kept in the annotation; undefined for anything else someone wrote there. */
function parseSchedule(json: string): CronSchedule | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `annotations: undefined` removes the input's annotations (a key left out would keep them). */
function orNone(annotations: Record<string, string>): Record<string, string> | undefined {
  return Object.keys(annotations).length > 0 ? annotations : undefined;
}

const FIELDS = ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const;

function toLine(schedule: CronSchedule): string {
  return FIELDS.map((field) => schedule[field] ?? '*').join(' ');
}

function sameSchedule(a: CronSchedule, b: CronSchedule): boolean {
  return FIELDS.every((field) => a[field] === b[field]);
}

/** The five-field lines cron's macros stand for. */
const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Registers the conversion: the manager serves it on /convert. */
export function setupCronJobV2Conversion(manager: Manager): void {
  manager.conversion(hubType).spoke(spokeType, { convertTo, convertFrom }).complete();
}
