import { describe, expect, it } from 'vitest';
import { KopError } from '../../src/base/errors.js';
import { insertAtMarkers, markerComment } from '../../src/scaffold/insert.js';

const MAIN = `import { a } from './a.js';
// +kop:scaffold:imports

async function main() {
  start();
  // +kop:scaffold:controllers
}
`;

describe('insertAtMarkers', () => {
  const cases = [
    {
      name: 'inserts before each marker with its indentation',
      given: {
        file: 'src/main.ts',
        content: MAIN,
        insertions: [
          { marker: 'imports', code: "import { registerFoo } from './controllers/foo.controller.js';" },
          { marker: 'controllers', code: 'registerFoo(manager);\n' },
        ],
      },
      want: {
        changed: true,
        content: `import { a } from './a.js';
import { registerFoo } from './controllers/foo.controller.js';
// +kop:scaffold:imports

async function main() {
  start();
  registerFoo(manager);
  // +kop:scaffold:controllers
}
`,
      },
    },
    {
      name: 'already present (even indented differently): no change',
      given: {
        file: 'src/main.ts',
        content: MAIN.replace('  start();', '  start();\n    registerFoo(manager);'),
        insertions: [{ marker: 'controllers', code: 'registerFoo(manager);' }],
      },
      want: { changed: false, content: MAIN.replace('  start();', '  start();\n    registerFoo(manager);') },
    },
    {
      name: 'multi-line fragment keeps its relative indentation',
      given: {
        file: 'src/main.ts',
        content: MAIN,
        insertions: [{ marker: 'controllers', code: 'if (x) {\n  y();\n}' }],
      },
      want: {
        changed: true,
        content: MAIN.replace(
          '  // +kop:scaffold:controllers',
          '  if (x) {\n    y();\n  }\n  // +kop:scaffold:controllers',
        ),
      },
    },
    {
      name: 'YAML uses # markers',
      given: {
        file: 'config/samples/kustomization.yaml',
        content: 'resources:\n# +kop:scaffold:samples\n',
        insertions: [{ marker: 'samples', code: '- cache_v1_memcached.yaml' }],
      },
      want: { changed: true, content: 'resources:\n- cache_v1_memcached.yaml\n# +kop:scaffold:samples\n' },
    },
    {
      name: 'empty fragment: no change',
      given: { file: 'src/main.ts', content: MAIN, insertions: [{ marker: 'imports', code: '\n\n' }] },
      want: { changed: false, content: MAIN },
    },
  ];

  for (const { name, given, want } of cases) {
    it(name, () => {
      const first = insertAtMarkers(given.file, given.content, given.insertions);
      expect(first).toEqual(want);
      // Idempotency: a second run over the result never changes it again.
      expect(insertAtMarkers(given.file, first.content, given.insertions)).toEqual({
        changed: false,
        content: first.content,
      });
    });
  }

  it('names the missing marker and how to fix it', () => {
    try {
      insertAtMarkers('src/main.ts', 'nothing here\n', [{ marker: 'imports', code: 'x' }]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(KopError);
      expect((error as KopError).message).toContain('`// +kop:scaffold:imports`');
      expect((error as KopError).hint).toMatch(/add the line/);
    }
  });

  const markerCases = [
    { given: 'src/main.ts', want: '// +kop:scaffold:x' },
    { given: 'a/b.js', want: '// +kop:scaffold:x' },
    { given: 'config/x.yaml', want: '# +kop:scaffold:x' },
    { given: 'config/x.yml', want: '# +kop:scaffold:x' },
    { given: 'Dockerfile', want: '# +kop:scaffold:x' },
  ];
  for (const { given, want } of markerCases) {
    it(`marker comment for ${given}`, () => expect(markerComment(given, 'x')).toBe(want));
  }
  it('refuses markers in files without line comments', () =>
    expect(() => markerComment('package.json', 'x')).toThrow(KopError));
});
