/**
 * The helm plugin of `kop edit`: the chart itself is built in src/helm (it renders config/ the way
 * `kop deploy` does); this is the plugin's part, its handlers of kop edit's phases.
 */
import type { PhaseHandlers } from '../../project/index.js';
import type { FlushResult } from '../../scaffold/index.js';
import { stageHelmChart } from '../../helm/index.js';
import type { EditStep } from '../edit-step.js';

/** Stages the chart in PROJECT's `output` (the key recorded under `pluginKey`), then says what was written. */
export function helmPhases(pluginKey: string): PhaseHandlers<EditStep> {
  let report: ((result: FlushResult) => void) | undefined;
  return {
    async scaffold(step) {
      const recorded = step.project.plugins?.[pluginKey];
      report = await stageHelmChart(
        step.tree,
        step.project,
        { force: step.force, output: recorded?.output },
        step.context,
      );
    },
    postScaffold: (_step, result) => report?.(result),
  };
}
