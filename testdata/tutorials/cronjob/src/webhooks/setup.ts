// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import type { Manager } from 'kop/runtime';
import { CronJobDefaulter as CronJobV1Defaulter } from './batch/v1/cronjob.defaulter.js';
import { CronJobValidator as CronJobV1Validator } from './batch/v1/cronjob.validator.js';
// +kop:scaffold:imports

/**
 * Registers every admission and conversion webhook of the project with the manager, which
 * serves them over HTTPS (port 9443 by default). src/main.ts and the webhook tests both call
 * it, so a test serves exactly the webhooks a deployment does. `kop create webhook` adds lines here.
 */
export function setupWebhooks(manager: Manager): void {
  void manager;
  new CronJobV1Defaulter().setupWithManager(manager);
  new CronJobV1Validator().setupWithManager(manager);
  // +kop:scaffold:webhooks
}
