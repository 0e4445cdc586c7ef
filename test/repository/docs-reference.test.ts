/**
 * The book's reference pages (docs/reference/cli.md, markers.md, runtime.md) are generated from
 * kop's code by hack/gen-reference.mjs and committed, so they read well on GitHub and every change
 * shows in review. This test renders them again from src/ with the script's own functions and fails
 * when a committed page differs: a new flag, marker or exported name must come with its page
 * (`node hack/gen-reference.mjs` after `npm run build`, or KOP_UPDATE_GOLDEN=1 on this test).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  REFERENCE_PAGES,
  readApiReports,
  renderCliReference,
  renderMarkersReference,
  renderRuntimeReference,
} from '../../hack/gen-reference.mjs';
import '../../src/schema/markers.js';
import '../../src/rbac/rbac-markers.js';
import '../../src/webhook-manifests/webhook-markers.js';
import { markerRegistry, markerUsage } from '../../src/markers/registry.js';
import { createProgram } from '../../src/cli/main.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const UPDATE = process.env.KOP_UPDATE_GOLDEN === '1';

const sink = { write: () => true };
const program = () => createProgram({ stdout: sink, stderr: sink, stdin: {}, env: {}, cwd: repo });

async function expectPage(file: string, rendered: string): Promise<void> {
  const target = path.join(repo, file);
  if (UPDATE) await fs.writeFile(target, rendered);
  const committed = await fs.readFile(target, 'utf8').catch(() => '(missing)');
  expect(committed, `${file} is stale: run \`npm run build && node hack/gen-reference.mjs\``).toBe(rendered);
}

describe('generated reference pages', () => {
  it('cli.md lists every command and option of the program', async () => {
    const page = renderCliReference(program());
    // Spot checks that the walk reaches nested commands and their flag tables.
    expect(page).toContain('## kop create api');
    expect(page).toContain('`--external-api-module <module>`');
    expect(page).toContain('## kop alpha update');
    await expectPage(REFERENCE_PAGES.cli, page);
  });

  it('markers.md lists every registered marker, by vocabulary', async () => {
    const definitions = markerRegistry.definitions();
    const page = renderMarkersReference(definitions, markerUsage);
    for (const definition of definitions) expect(page).toContain(markerUsage(definition).replace(/\|/g, '\\|'));
    expect(page).toContain('## RBAC markers');
    await expectPage(REFERENCE_PAGES.markers, page);
  });

  it('runtime.md holds every API report', async () => {
    const reports = readApiReports(repo);
    expect(reports.map((r) => r.file)).toContain('kop-runtime.api.md');
    const page = renderRuntimeReference(reports);
    for (const subpath of ['kop/runtime', 'kop/runtime/client', 'kop/testing'])
      expect(page).toContain(`## ${subpath}\n`);
    await expectPage(REFERENCE_PAGES.runtime, page);
  });
});

describe('hack/gen-reference.mjs', () => {
  it('loads from dist/ only modules that src/ builds (a renamed folder must be renamed there too)', async () => {
    // The script imports the built modules, which this test (reading src/) never loads: a module
    // moved in src/ left `node hack/gen-reference.mjs` failing on a clean build while this file passed.
    const script = await fs.readFile(path.join(repo, 'hack/gen-reference.mjs'), 'utf8');
    const modules = [...script.matchAll(/\bdist\('([^']+)\.js'\)/g)].map((match) => match[1]!);
    expect(modules).toContain('markers/registry');
    const missing: string[] = [];
    for (const module of modules) {
      const source = path.join(repo, 'src', `${module}.ts`);
      if (!(await fs.stat(source).catch(() => undefined))) missing.push(`src/${module}.ts`);
    }
    expect(missing).toEqual([]);
  });
});
