// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import type { Manager } from 'kop/runtime';
import { SailorDefaulter as SailorV1Defaulter } from './crew/v1/sailor.defaulter.js';
import { SailorValidator as SailorV1Validator } from './crew/v1/sailor.validator.js';
import { PodDefaulter as PodV1Defaulter } from './core/v1/pod.defaulter.js';
import { DeploymentDefaulter as DeploymentV1Defaulter } from './apps/v1/deployment.defaulter.js';
import { DeploymentValidator as DeploymentV1Validator } from './apps/v1/deployment.validator.js';
import { IssuerDefaulter as IssuerV1Defaulter } from './cert-manager/v1/issuer.defaulter.js';
// +kop:scaffold:imports

/**
 * Registers every admission and conversion webhook of the project with the manager, which
 * serves them over HTTPS (port 9443 by default). src/main.ts and the webhook tests both call
 * it, so a test serves exactly the webhooks a deployment does. `kop create webhook` adds lines here.
 */
export function setupWebhooks(manager: Manager): void {
  void manager;
  new SailorV1Defaulter().setupWithManager(manager);
  new SailorV1Validator().setupWithManager(manager);
  new PodV1Defaulter().setupWithManager(manager);
  new DeploymentV1Defaulter().setupWithManager(manager);
  new DeploymentV1Validator().setupWithManager(manager);
  new IssuerV1Defaulter().setupWithManager(manager);
  // +kop:scaffold:webhooks
}
