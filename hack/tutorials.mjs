#!/usr/bin/env node
// Follows the book's tutorials (docs/tutorial/) with the built kop, command for command, and checks
// what they make: the project equals the committed one in testdata/tutorials/<name>/, the page shows
// every command, and the project builds, lints and passes its own tests on a real control plane.
//
//   npm run build && node hack/tutorials.mjs [cronjob|multiversion ...] [--update] [--no-build] [--no-test] [--keep]
//
// --update   take the new project as testdata/tutorials/<name>/ instead of comparing (after changing
//            kop's scaffold, or the reader's edits in testdata/tutorials/<name>.edits/); review the diff
// --no-build skip build, lint and test; --no-test skip only the test; --keep keep the temp project
// Exits 0 when every step and check passes.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { KOP_ROOT } from '../test/kubebuilder-testdata/run-script.mjs';
import { formatTimes, runTutorials } from '../test/tutorials/run-tutorials.mjs';
import { TUTORIAL_NAMES } from '../test/tutorials/tutorials.mjs';

const OPTIONS = ['--update', '--no-build', '--no-test', '--keep'];
const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
for (const flag of flags) {
  if (!OPTIONS.includes(flag)) {
    console.error(`error: unknown option '${flag}' (known: ${OPTIONS.join(', ')})`);
    process.exit(2);
  }
}
const names = args.filter((a) => !a.startsWith('--'));
for (const name of names) {
  if (!TUTORIAL_NAMES.includes(name)) {
    console.error(`error: unknown tutorial '${name}' (known: ${TUTORIAL_NAMES.join(', ')})`);
    process.exit(2);
  }
}
if (!existsSync(path.join(KOP_ROOT, 'dist/cli/main.js'))) {
  console.error('error: dist/cli/main.js is missing: run `npm run build` first');
  process.exit(1);
}

const { results } = await runTutorials({
  names: names.length > 0 ? names : TUTORIAL_NAMES,
  update: flags.has('--update'),
  build: !flags.has('--no-build'),
  test: !flags.has('--no-test'),
  keep: flags.has('--keep'),
  log: (line) => console.log(line),
});

console.log('\n## Times');
for (const result of results) console.log(`\n${result.tutorial}\n${formatTimes(result)}`);
const pass = results.every(
  (r) =>
    r.steps.every((s) => s.ok) &&
    r.checks.every((s) => s.ok) &&
    r.differences.length === 0 &&
    r.pageProblems.length === 0,
);
process.exit(pass ? 0 : 1);
