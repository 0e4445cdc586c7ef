import type { CommandStep } from '../project/index.js';

/** What a plugin of `kop edit` gets in every phase: the one tree all of the run's plugins stage into, and PROJECT. */
export interface EditStep extends CommandStep {
  /** `kop edit --force`: replace files the plugin otherwise keeps or merges. */
  readonly force: boolean;
}
