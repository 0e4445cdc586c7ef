import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTROLLER_TEMPLATES } from '../../src/create-api/api-template-data.js';
import { INIT_TEMPLATES, type InitTemplateData } from '../../src/init/init-template-data.js';
import { renderTemplateDir } from '../../src/scaffold/render.js';
import {
  folderDeclarations,
  forgetSharedProjects,
  templateDataProblems,
  templateReads,
} from '../helpers/template-data-check.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = path.join(ROOT, 'test/scaffold/fixtures/template-data');

/** The modules that declare template folders: `*-template-data.ts` beside the code that builds the data. */
function templateDataModules(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('-template-data.ts'))
    .map((file) => path.join(dir, file));
}

describe('template data types against the templates', () => {
  afterAll(forgetSharedProjects);

  it('finds the names a template reads at the top level of its data', () => {
    const cases = [
      { given: '{{a}} {{json b}} {{#if c}}{{d.e}}{{else}}{{f}}{{/if}}', want: ['a', 'b', 'c', 'd', 'f'] },
      {
        given: '{{#each list}}{{this}} {{item}} {{../outer}} {{@root.top}} {{@index}}{{else}}{{none}}{{/each}}',
        want: ['list', 'outer', 'top', 'none'],
      },
      { given: '{{#unless (eq a "x")}}{{{b}}}{{/unless}} {{!-- {{c}} --}}', want: ['a', 'b'] },
      { given: '{{#with w}}{{inner}}{{/with}}', want: ['w'] },
    ];
    for (const { given, want } of cases) expect([...templateReads(given)].sort(), given).toEqual([...want].sort());
  });

  it('every folder of templates/ is declared, and each type has exactly the keys its templates read', () => {
    const declarations = folderDeclarations(templateDataModules(path.join(ROOT, 'src')), ROOT);
    expect(declarations.map((d) => d.dir)).toEqual(expect.arrayContaining(['init', 'api/resource', 'webhook/common']));
    expect(templateDataProblems(path.join(ROOT, 'templates'), declarations)).toEqual([]);
  }, 240_000);

  it('fails for a template that reads a key its type lacks, and for a key no template reads', () => {
    const declarations = folderDeclarations(templateDataModules(FIXTURE), ROOT);
    expect(declarations.map((d) => [d.dir, [...d.keys].sort()])).toEqual([['demo', ['name', 'unread']]]);
    expect(templateDataProblems(path.join(FIXTURE, 'templates'), declarations)).toEqual([
      'templates/demo/src/__name__.ts.hbs reads "nmae", which DemoTemplateData (test/scaffold/fixtures/template-data/demo-template-data.ts:11) lacks',
      'templates/demo/src/__name__.ts.hbs reads "items", which DemoTemplateData (test/scaffold/fixtures/template-data/demo-template-data.ts:11) lacks',
      'DemoTemplateData (test/scaffold/fixtures/template-data/demo-template-data.ts:11) has "unread", which no template of demo reads',
    ]);
  }, 240_000);

  it('reports a template under no declared folder', () => {
    expect(templateDataProblems(path.join(FIXTURE, 'templates'), [])).toEqual([
      'templates/demo/src/__name__.ts.hbs: no templateFolder<...>() declares its folder',
    ]);
  });
});

/**
 * Compile-time checks (tsc over test/, not run): a folder renders only with its own data.
 * Each line below must fail to compile, or tsc reports the unused @ts-expect-error.
 */
export async function wrongDataDoesNotCompile(data: InitTemplateData): Promise<void> {
  // @ts-expect-error a misspelled key
  await renderTemplateDir(INIT_TEMPLATES, { ...data, projectNmae: 'x' });
  // @ts-expect-error a key the folder's type has is missing
  await renderTemplateDir(INIT_TEMPLATES, { projectName: 'x' });
  // @ts-expect-error another family's data
  await renderTemplateDir(CONTROLLER_TEMPLATES, data);
}
