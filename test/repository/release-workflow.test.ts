/**
 * .github/workflows/release.yml: a v* tag runs all of CI, then publishes with provenance. Checked
 * here because a mistake in it shows only on the day of a release.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Step {
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Workflow {
  on: { push: { tags: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, { permissions: Record<string, string>; steps: Step[] }>;
}

describe('release workflow', () => {
  const workflow = load(readFileSync(path.join(repo, '.github/workflows/release.yml'), 'utf8')) as Workflow;
  const job = workflow.jobs.release!;

  it('runs on version tags only, with no permissions beyond the job’s', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v*'] } });
    expect(workflow.permissions).toEqual({});
    expect(job.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
  });

  it('runs CI before publishing with provenance, and pins its actions to commits', () => {
    const runs = job.steps.map((step) => step.run ?? '');
    const tests = runs.findIndex((run) => run.trim() === '.ci/run');
    const publish = runs.findIndex((run) => run.trim() === 'npm publish --provenance --access public');
    expect(tests).toBeGreaterThanOrEqual(0);
    expect(publish).toBeGreaterThan(tests);
    expect(job.steps[tests]!.env).toEqual({ CI: 'true' });
    for (const step of job.steps.filter((s) => s.uses)) expect(step.uses).toMatch(/@[0-9a-f]{40}$/);
  });
});
