// A kind must not take a name the scaffolded or generated code already uses, or the project does
// not compile; and the names derived from a kind must be valid when it is created, not later.
import { readFile, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/base/errors.js';
import { RESERVED_KIND_NAMES, SCAFFOLD_IMPORTED_NAMES, runCreateApi } from '../../src/create-api/run-create-api.js';
import { runInit } from '../../src/init/run-init.js';
import { generateClients } from '../../src/clientgen/generate-clients.js';
import { loadApiModel } from '../../src/schema/model.js';
import { testContext } from '../helpers/fake-context.js';
import { preparedProject } from '../helpers/prepared-project.js';
import { listFiles } from '../helpers/files.js';

const templates = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../templates/api');

/** Upper-case names a TypeScript text imports or uses as a type (`Name<` or `: Name`). */
function upperCaseNamesUsed(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, list] of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const entry of list!.split(',')) {
      const name = entry
        .replace(/^\s*type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      if (/^[A-Z][A-Za-z0-9]*$/.test(name)) names.add(name);
    }
  }
  for (const [, name] of text.matchAll(/\b([A-Z][A-Za-z0-9]*)</g)) names.add(name!);
  return names;
}

describe('reserved kind names', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const prepared = preparedProject('demo', async (at) => {
    await runInit(
      { projectName: 'demo', domain: 'example.com', license: 'none', kopSource: 'file:../kop', skipInstall: true },
      testContext({ cwd: at }),
    );
  });
  beforeEach(async () => {
    ({ dir, cleanup } = await prepared());
  });
  afterEach(() => cleanup());

  it('cover every upper-case name the API templates and a generated client use', async () => {
    const used = new Set<string>();
    for (const file of await listFiles(templates)) {
      if (file.endsWith('.ts.hbs'))
        for (const name of upperCaseNamesUsed(await readFile(path.join(templates, file), 'utf8'))) used.add(name);
    }
    await runCreateApi({ group: 'cache', version: 'v1', kind: 'Widget' }, testContext({ cwd: dir }));
    for (const file of generateClients(await loadApiModel(dir)))
      for (const name of upperCaseNamesUsed(file.content)) used.add(name);
    // The kind's own names (Widget, WidgetSpec, ...) come from the kind itself.
    const missing = [...used].filter((name) => !name.startsWith('Widget') && !RESERVED_KIND_NAMES.has(name));
    expect(missing).toEqual([]);
    expect(SCAFFOLD_IMPORTED_NAMES.filter((name) => !used.has(name))).toEqual([]);
    expect(used.size).toBeGreaterThan(5);
  });

  for (const kind of ['Request', 'Manager', 'Promise', 'Client', 'ObjectMeta', 'ResourceType']) {
    it(`refuses kind ${kind}, writing nothing`, async () => {
      const before = await listFiles(dir);
      const project = await readFile(path.join(dir, 'PROJECT'), 'utf8');
      await expect(runCreateApi({ group: 'cache', version: 'v1', kind }, testContext({ cwd: dir }))).rejects.toThrow(
        /already uses the name/,
      );
      expect(await listFiles(dir)).toEqual(before);
      expect(await readFile(path.join(dir, 'PROJECT'), 'utf8')).toBe(project);
    });
  }

  it('refuses a kind whose plural is longer than 63 characters, and a CRD name over 253', async () => {
    const longKind = `A${'b'.repeat(62)}`; // 63 characters: a valid kind, with a 64-character plural
    const error = await runCreateApi(
      { group: 'cache', version: 'v1', kind: longKind },
      testContext({ cwd: dir }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/the plural ".*" is 64 characters/);
    const longGroup = Array.from({ length: 4 }, () => 'g'.repeat(60)).join('.');
    await expect(
      runCreateApi({ group: longGroup, version: 'v1', kind: 'Widget' }, testContext({ cwd: dir })),
    ).rejects.toThrow(/would be \d+ characters; at most 253/);
    expect(await readdir(path.join(dir, 'api'))).toEqual(['.gitkeep']);
  });
});
