// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import type { Manager } from 'kop/runtime';
import { cronJobType as hubType } from '../../../../api/batch/v1/cronjob.client.js';
import type { CronJob as Hub } from '../../../../api/batch/v1/cronjob.types.js';
import { cronJobType as spokeType } from '../../../../api/batch/v2/cronjob.client.js';
import type { CronSchedule, CronJob as Spoke } from '../../../../api/batch/v2/cronjob.types.js';

// Conversion between CronJob v2 (this spoke) and v1 (the hub, the version etcd
// stores): the apiserver calls the manager's /convert endpoint whenever a client reads or writes
// v2. Every spoke converts to and from the hub only, so n versions need 2(n-1) functions.
// Each must keep every field: an object written as v2, stored as v1 and read back
// as v2 must be unchanged (store what the hub has no field for in an annotation).

const HUB_API_VERSION = 'batch.tutorial.kubebuilder.io/v1';
const SPOKE_API_VERSION = 'batch.tutorial.kubebuilder.io/v2';

// #region convertTo
/** v2 → v1: the schedule's fields joined into one cron line; a field left out is "*". */
export function convertTo(spoke: Spoke): Hub {
  const { schedule, ...rest } = spoke.spec;
  const fields = [schedule.minute, schedule.hour, schedule.dayOfMonth, schedule.month, schedule.dayOfWeek];
  return {
    ...spoke,
    apiVersion: HUB_API_VERSION,
    spec: { ...rest, schedule: fields.map((field) => field ?? '*').join(' ') },
  };
}
// #endregion convertTo

// #region convertFrom
/**
 * v1 → v2: the cron line split into its five fields, a "*" left out. A macro becomes the fields
 * it stands for ("@hourly" is minute 0), so a v2 client sees the same schedule.
 */
export function convertFrom(hub: Hub): Spoke {
  const { schedule, ...rest } = hub.spec;
  return { ...hub, apiVersion: SPOKE_API_VERSION, spec: { ...rest, schedule: toFields(schedule) } };
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

function toFields(line: string): CronSchedule {
  const fields = (MACROS[line.trim()] ?? line).trim().split(/\s+/);
  // The v1 validator admits five fields or a macro only; anything else cannot be stored.
  if (fields.length !== 5) throw new Error(`schedule "${line}" is not five cron fields`);
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields.map((field) => (field === '*' ? undefined : field));
  const schedule: CronSchedule = {};
  if (minute !== undefined) schedule.minute = minute;
  if (hour !== undefined) schedule.hour = hour;
  if (dayOfMonth !== undefined) schedule.dayOfMonth = dayOfMonth;
  if (month !== undefined) schedule.month = month;
  if (dayOfWeek !== undefined) schedule.dayOfWeek = dayOfWeek;
  return schedule;
}
// #endregion convertFrom

/** Registers the conversion: the manager serves it on /convert. */
export function setupCronJobV2Conversion(manager: Manager): void {
  manager.conversion(hubType).spoke(spokeType, { convertTo, convertFrom }).complete();
}
