// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { Manager } from 'kop/runtime';
import { BarDefaulter as FooBarV1Defaulter } from './foo/v1/bar.defaulter.js';
import { BarValidator as FooBarV1Validator } from './foo/v1/bar.validator.js';
import { BarDefaulter as FizBarV1Defaulter } from './fiz/v1/bar.defaulter.js';
import { BarValidator as FizBarV1Validator } from './fiz/v1/bar.validator.js';
// +kop:scaffold:imports

/**
 * Registers every admission and conversion webhook of the project with the manager, which
 * serves them over HTTPS (port 9443 by default). src/main.ts and the webhook tests both call
 * it, so a test serves exactly the webhooks a deployment does. `kop create webhook` adds lines here.
 */
export function setupWebhooks(manager: Manager): void {
  void manager;
  new FooBarV1Defaulter().setupWithManager(manager);
  new FooBarV1Validator().setupWithManager(manager);
  new FizBarV1Defaulter().setupWithManager(manager);
  new FizBarV1Validator().setupWithManager(manager);
  // +kop:scaffold:webhooks
}
