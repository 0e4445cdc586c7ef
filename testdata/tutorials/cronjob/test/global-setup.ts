// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

/**
 * Vitest global setup of the `controllers` project (vitest.config.ts): one real control plane
 * (etcd + kube-apiserver, from kop/testing) for the tests under test/controllers, with this
 * project's CRDs (config/crd/bases) installed and Established. It starts only when some of those
 * tests run, so the other tests (flags, pure logic) need no control-plane binaries.
 *
 * How a test reaches it:
 *   import { inject } from 'vitest';
 *   const kubeconfigPath = inject('kubeconfigPath'); // admin (group system:masters) kubeconfig file
 *   const kubeconfig = inject('kubeconfig');         // the same kubeconfig as an object
 * KUBECONFIG is set to the same file for the test workers, so code that loads the default
 * kubeconfig talks to this control plane too.
 *
 * The binaries come from `npx kop setup-envtest` (downloaded, or built where that fails; cached),
 * or KUBEBUILDER_ASSETS.
 * USE_EXISTING_CLUSTER=true runs the tests against your current kubeconfig's cluster instead;
 * KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true shows the control plane's logs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startControlPlane, type Kubeconfig } from 'kop/testing';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the admin kubeconfig of the test control plane. */
    kubeconfigPath: string;
    /** The admin kubeconfig of the test control plane. */
    kubeconfig: Kubeconfig;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const crdDir = join(project.config.root, 'config', 'crd', 'bases');
  const plane = await startControlPlane({ crds: existsSync(crdDir) ? [crdDir] : [] });
  const previousKubeconfig = process.env.KUBECONFIG;
  project.provide('kubeconfigPath', plane.kubeconfigPath);
  project.provide('kubeconfig', plane.kubeconfig);
  process.env.KUBECONFIG = plane.kubeconfigPath;
  return async () => {
    if (previousKubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previousKubeconfig;
    await plane.stop();
  };
}
