import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt, sharedKop, sharedPackEnv } from '../helpers/cli-project.js';
import { formatTimes, runTutorials, type TutorialResult } from './run-tutorials.mjs';
import { TUTORIALS, TUTORIAL_NAMES } from './tutorials.mjs';

/**
 * The book's tutorials (docs/tutorial/), followed with the built kop command for command as their
 * pages show them, the reader's edits from testdata/tutorials/<name>.edits/ between: the project
 * each makes equals the committed testdata/tutorials/<name>/ (which the pages include code from),
 * the page shows every command, and the project builds (`tsc --strict`), lints, is formatted and
 * passes its own `npm test` on a real control plane. The multiversion tutorial goes on in the
 * CronJob tutorial's project. `node hack/tutorials.mjs` runs the same and prints the times;
 * `--update` takes a changed project.
 *
 * Kept out of test/e2e so that `npm run test:lts` does not run it on every Node: it tests the
 * tutorials' projects, not Node versions. Measured on the shared 2-core machine: the CronJob
 * tutorial about 2.5 min (npm test 70 s), the multiversion one about 3 min (npm test 110 s).
 */
const TIMEOUT_MS = 900_000;

let results: TutorialResult[] = [];

beforeAll(async () => {
  requireBuilt();
  // The run's one packed kop: kop init copies it, and the project links it unpacked.
  ({ results } = await runTutorials({ names: TUTORIAL_NAMES, env: sharedPackEnv(), kop: sharedKop() }));
}, TIMEOUT_MS);

afterAll(() => {
  for (const result of results) console.log(`${result.tutorial}\n${formatTimes(result)}`);
});

describe.each(TUTORIAL_NAMES.map((name) => [name] as const))('the %s tutorial', (name) => {
  const result = () => {
    const found = results.find((r) => r.tutorial === name);
    if (!found) throw new Error(`the ${name} tutorial did not run (one it builds on failed)`);
    return found;
  };

  it('runs every command of the page and applies the edits', () => {
    const failed = result().steps.filter((s) => !s.ok);
    expect(failed.map((s) => `${s.name}: ${s.firstError}`)).toEqual([]);
    expect(result().steps).toHaveLength(TUTORIALS[name]!.steps.length);
  });

  it('makes the committed project (testdata/tutorials), what the page includes code from', () => {
    expect(result().differences).toEqual([]);
  });

  it('shows every command on its page, and includes only code the project has', () => {
    expect(result().pageProblems).toEqual([]);
  });

  it('builds, lints, is formatted and passes its own tests', () => {
    const checks = result().checks;
    expect(checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.firstError}`)).toEqual([]);
    expect(checks.map((c) => c.name)).toEqual(['npm run build', 'npm run lint', 'npm run format:check', 'npm test']);
  });
});
