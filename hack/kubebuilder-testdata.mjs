#!/usr/bin/env node
// Runs Kubebuilder's testdata scripts (test/kubebuilder-testdata/scripts.mjs) with the built kop and
// prints, per project, how many commands succeed, each make/npm step, and how PROJECT compares with
// Kubebuilder's; then every distinct failure message with the commands that gave it.
//
//   npm run build && node hack/kubebuilder-testdata.mjs [project ...] [--no-test] [--keep] [--quiet] [--json]
//
// Exits 0 when every command and step passes and every PROJECT matches.
import { PROJECT_NAMES } from '../test/kubebuilder-testdata/scripts.mjs';
import { KOP_BIN, formatTable, groupFailures, runKubebuilderScript } from '../test/kubebuilder-testdata/run-script.mjs';
import { existsSync } from 'node:fs';
import * as path from 'node:path';

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
for (const flag of flags) {
  if (!['--no-test', '--keep', '--quiet', '--json'].includes(flag)) {
    console.error(`error: unknown option '${flag}' (known: --no-test, --keep, --quiet, --json)`);
    process.exit(2);
  }
}
const projects = args.filter((a) => !a.startsWith('--'));
for (const p of projects) {
  if (!PROJECT_NAMES.includes(p)) {
    console.error(`error: unknown project '${p}' (known: ${PROJECT_NAMES.join(', ')})`);
    process.exit(2);
  }
}
if (!existsSync(path.join(path.dirname(KOP_BIN), '../dist/cli/main.js'))) {
  console.error('error: dist/cli/main.js is missing: run `npm run build` first');
  process.exit(1);
}

const results = [];
for (const projectName of projects.length > 0 ? projects : PROJECT_NAMES) {
  if (!flags.has('--json')) console.log(`\n## ${projectName}`);
  const result = await runKubebuilderScript(projectName, {
    test: !flags.has('--no-test'),
    keep: flags.has('--keep'),
    log: flags.has('--quiet') || flags.has('--json') ? undefined : (line) => console.log(line),
  });
  results.push(result);
  if (flags.has('--json')) continue;
  if (result.bootstrap.length > 0)
    console.log(`(init failed; the rest ran in a project made without ${result.bootstrap.join(' ')})`);
  if (flags.has('--keep')) console.log(`project kept in ${result.dir}`);
  if (result.projectDifferences.length > 0)
    console.log(`PROJECT differences:\n${result.projectDifferences.map((d) => `  - ${d}`).join('\n')}`);
  console.log(`kop's own time: ${(result.kopMs / 1000).toFixed(1)} s`);
}

const failures = groupFailures(results);
if (flags.has('--json')) {
  console.log(JSON.stringify({ results, failures }, null, 2));
} else {
  console.log(`\n## Summary\n\n${formatTable(results)}\n`);
  if (failures.length > 0) {
    console.log('## Distinct failures\n');
    for (const { message, where } of failures)
      console.log(`${where.length} × ${message}\n${where.map((w) => `    ${w}`).join('\n')}`);
  }
}
const allPass = results.every(
  (r) => r.commands.every((c) => c.ok) && r.steps.every((s) => s.ok) && r.projectDifferences.length === 0,
);
process.exit(allPass ? 0 : 1);
