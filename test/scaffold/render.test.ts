import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { KopError } from '../../src/base/errors.js';
import { GENERATED_HEADER, SCAFFOLDED_NOTE, headerLine, isGenerated, withHeader } from '../../src/scaffold/header.js';
import {
  jsonLiteral,
  renderTemplate,
  renderTemplateDir,
  templateFolder,
  templatePathToOutput,
  withTemplateData,
  yamlScalar,
} from '../../src/scaffold/render.js';
import { tempDir } from '../helpers/fake-context.js';

const HOSTILE = [
  'a"b',
  "it's",
  'x\ny: 1',
  '</script>',
  'back\\slash',
  '${x}',
  '*/ evil /*',
  'line\u2028sep',
  '# not a comment',
  ': colon',
  '- dash',
  'true',
  '123',
  '',
];

describe('renderTemplate', () => {
  it('does not HTML-escape code', () => {
    expect(renderTemplate('a {{x}} b', { x: '<T> & "q"' })).toBe('a <T> & "q" b');
  });

  it('fails on a missing variable instead of rendering an empty string', () => {
    expect(() => renderTemplate('{{nope}}', {}, 'x.hbs')).toThrow(KopError);
    expect(() => renderTemplate('{{nope}}', {}, 'x.hbs')).toThrow(/cannot render x.hbs/);
  });

  for (const value of HOSTILE) {
    it(`json helper keeps ${JSON.stringify(value)} inside a TypeScript/JSON string`, () => {
      const source = renderTemplate('const name = {{json value}};', { value });
      const literal = source.slice('const name = '.length, -1);
      expect(source.split('\n')).toHaveLength(1);
      expect(JSON.parse(literal)).toBe(value);
      // The same literal is a valid YAML double-quoted scalar.
      expect(parseYaml(`name: ${literal}`)).toEqual({ name: value });
    });
    it(`yaml helper keeps ${JSON.stringify(value)} a single scalar`, () => {
      const doc = renderTemplate('name: {{yaml value}}\nother: 1\n', { value });
      expect(parseYaml(doc)).toEqual({ name: value, other: 1 });
    });
  }

  it('comment helper keeps text on one comment line', () => {
    expect(renderTemplate('// {{comment v}}', { v: 'a\nb */ c -->' })).toBe('// a b * / c -- >');
  });

  it('jsonLiteral escapes characters that could end an enclosing context', () => {
    expect(jsonLiteral('</script>&')).toBe('"\\u003c/script\\u003e\\u0026"');
    expect(yamlScalar('plain')).toBe('plain');
  });
});

describe('templatePathToOutput', () => {
  const cases = [
    {
      given: 'api/__group__/__version__/types.ts.hbs',
      data: { group: 'cache', version: 'v1' },
      want: 'api/cache/v1/types.ts',
    },
    { given: '_gitignore.hbs', data: {}, want: '.gitignore' },
    {
      given: 'config/samples/__group__-__version__.yaml',
      data: { group: 'g', version: 'v1' },
      want: 'config/samples/g-v1.yaml',
    },
    { given: '__group_____version__.yaml', data: { group: 'g', version: 'v1' }, want: 'g_v1.yaml' },
    { given: 'LICENSE', data: {}, want: 'LICENSE' },
  ];
  for (const { given, data, want } of cases)
    it(`${given} -> ${want}`, () => expect(templatePathToOutput(given, data)).toBe(want));

  for (const bad of ['..', '../x', 'a/b', '', undefined]) {
    it(`refuses placeholder value ${JSON.stringify(bad)}`, () => {
      expect(() => templatePathToOutput('x/__name__.ts', { name: bad })).toThrow(KopError);
    });
  }
});

describe('renderTemplateDir', () => {
  const demo = templateFolder<{ name: string }>('demo');

  it('renders .hbs files, copies others verbatim, applies front matter and headers', async () => {
    const { dir, cleanup } = await tempDir('templates');
    try {
      await mkdir(path.join(dir, 'demo/src'), { recursive: true });
      await writeFile(path.join(dir, 'demo/src/__name__.ts.hbs'), 'export const name = {{json name}};\n');
      await writeFile(path.join(dir, 'demo/gen.yaml.hbs'), '{{!-- kop: kind=generated --}}\nname: {{yaml name}}\n');
      await writeFile(path.join(dir, 'demo/plain.txt'), 'keep {{this}}\n');
      await writeFile(path.join(dir, 'demo/run.sh.hbs'), '{{!-- kop: header=false mode=755 --}}\n#!/bin/sh\n');
      const files = await renderTemplateDir(demo, { name: 'widget' }, dir);
      expect(files).toEqual([
        { path: 'gen.yaml', content: `# ${GENERATED_HEADER}\nname: widget\n`, kind: 'generated', mode: undefined },
        { path: 'plain.txt', content: 'keep {{this}}\n', kind: 'scaffolded', mode: undefined },
        { path: 'run.sh', content: '#!/bin/sh\n', kind: 'scaffolded', mode: 0o755 },
        {
          path: 'src/widget.ts',
          content: `// ${SCAFFOLDED_NOTE}\nexport const name = "widget";\n`,
          kind: 'scaffolded',
          mode: undefined,
        },
      ]);
      await writeFile(path.join(dir, 'demo/bad.hbs'), '{{!-- kop: colour=blue --}}\n');
      await expect(renderTemplateDir(demo, { name: 'widget' }, dir)).rejects.toThrow(/unknown front matter/);
    } finally {
      await cleanup();
    }
  });

  it('renders a folder bound with withTemplateData with the data it brings, over the data it is given', async () => {
    const { dir, cleanup } = await tempDir('templates');
    try {
      await mkdir(path.join(dir, 'more'), { recursive: true });
      await writeFile(path.join(dir, 'more/__name__.txt.hbs'), '{{{comment name}}} runs {{image}}\n');
      const more = templateFolder<{ name: string; image: string }>('more');
      const bound = withTemplateData<{ name: string }, { image: string }>(more, { image: 'busybox' });
      const [file] = await renderTemplateDir(bound, { name: 'widget' }, dir);
      expect(file).toMatchObject({ path: 'widget.txt', content: 'widget runs busybox\n' });
      // Without what it brings, the folder's template misses a key (strict rendering).
      await expect(renderTemplateDir(more as never, { name: 'widget' }, dir)).rejects.toThrow(/image/);
    } finally {
      await cleanup();
    }
  });
});

describe('headers', () => {
  const cases = [
    { given: { file: 'a.ts', kind: 'generated' as const }, want: `// ${GENERATED_HEADER}` },
    { given: { file: 'a.yaml', kind: 'generated' as const }, want: `# ${GENERATED_HEADER}` },
    { given: { file: 'Dockerfile', kind: 'scaffolded' as const }, want: `# ${SCAFFOLDED_NOTE}` },
    { given: { file: 'README.md', kind: 'scaffolded' as const }, want: `<!-- ${SCAFFOLDED_NOTE} -->` },
    { given: { file: 'package.json', kind: 'generated' as const }, want: undefined },
    { given: { file: 'a.ts', kind: 'inserted' as const }, want: undefined },
  ];
  for (const { given, want } of cases) {
    it(`${given.kind} header for ${given.file}`, () => expect(headerLine(given.file, given.kind)).toBe(want));
  }

  it('goes after a shebang and a Dockerfile directive, and is never added twice', () => {
    expect(withHeader('x.mjs', '#!/usr/bin/env node\nrun();\n', 'generated')).toBe(
      `#!/usr/bin/env node\n// ${GENERATED_HEADER}\nrun();\n`,
    );
    expect(withHeader('Dockerfile', '# syntax=docker/dockerfile:1\nFROM x\n', 'scaffolded')).toBe(
      `# syntax=docker/dockerfile:1\n# ${SCAFFOLDED_NOTE}\nFROM x\n`,
    );
    const once = withHeader('a.ts', 'x\n', 'generated');
    expect(withHeader('a.ts', once, 'generated')).toBe(once);
    expect(isGenerated(once)).toBe(true);
    expect(isGenerated('x\n')).toBe(false);
  });
});
