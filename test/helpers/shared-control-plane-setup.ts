/**
 * The live project's globalSetup: runs the broker of shared control planes in vitest's main process
 * (see shared-control-plane-broker.ts) and stops every plane it started when the run ends.
 */
import type { TestProject } from 'vitest/node';
import { SharedControlPlaneBroker } from './shared-control-plane-broker.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const broker = await SharedControlPlaneBroker.start();
  project.provide('sharedControlPlaneBroker', broker.address);
  return () => broker.close();
}
