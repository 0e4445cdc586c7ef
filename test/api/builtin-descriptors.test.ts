/**
 * Built-in descriptors cannot be taken for a project's own (issue 24, snag 11): a project with a
 * CronJob kind of its own gets `cronJobType` from `kop generate`; batch/v1's is
 * `batchV1CronJobType` on kop/runtime/builtin, so an editor's auto-import cannot offer the wrong
 * one under the right name, and passing one where the other's objects are meant does not compile.
 * The fixture files under fixtures/builtin-descriptors are compiled by tsc against this checkout.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLIENT_NODE_INDEX_LEFT_OUT } from '../helpers/ts-program-options.js';
import { ts } from '../helpers/typescript.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = path.join(repo, 'test/api/fixtures/builtin-descriptors');

/** tsc's errors for each fixture file, as `TS<code>: <message>` lines. */
function compile(files: string[]): Map<string, string[]> {
  const program = ts.createProgram(
    files.map((file) => path.join(fixture, file)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      // tsconfig.json's lib: without it, ES2022's default lib brings the DOM's declarations, which src/ never sees.
      lib: ['lib.es2023.d.ts'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [path.join(repo, 'node_modules/@types')],
      baseUrl: fixture,
      paths: {
        'kop/runtime': [path.join(repo, 'src/runtime/index.ts')],
        'kop/runtime/builtin': [path.join(repo, 'src/runtime/builtin/index.ts')],
        'kop/api': [path.join(repo, 'src/api/index.ts')],
        // client-node's index left out: most of the program, and no type these files check comes from it.
        ...CLIENT_NODE_INDEX_LEFT_OUT,
      },
    },
  );
  const errors = new Map<string, string[]>(files.map((file) => [file, []]));
  // The fixture's own files only: their errors are what the tests read, and checking them checks
  // what they use of src/. getPreEmitDiagnostics would type-check every file of src/runtime as
  // well, which `tsc --noEmit` does already.
  const fixtureFiles = program
    .getSourceFiles()
    .filter((source) => !path.relative(fixture, source.fileName).startsWith('..'));
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...fixtureFiles.flatMap((source) => [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ]),
  ];
  for (const diagnostic of diagnostics) {
    const file = diagnostic.file ? path.relative(fixture, diagnostic.file.fileName) : '(program)';
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    errors.set(file, [...(errors.get(file) ?? []), `TS${diagnostic.code}: ${message}`]);
  }
  return errors;
}

describe('built-in descriptors and a project kind of the same name', () => {
  const errors = compile(['both-kinds.ts', 'cronjob-from-root.ts', 'cronjob-from-builtin.ts', 'crossed-kinds.ts']);

  it('the project descriptor and batch/v1 CronJob descriptor sit side by side in one file', () => {
    expect(errors.get('both-kinds.ts')).toEqual([]);
    expect(errors.get('api/v1/cronjob.client.ts') ?? []).toEqual([]);
  });

  it('kop/runtime has no cronJobType an editor could auto-import', () => {
    expect(errors.get('cronjob-from-root.ts')).toEqual([
      expect.stringMatching(/^TS2305: Module '"kop\/runtime"' has no exported member 'cronJobType'/),
    ]);
  });

  it('kop/runtime/builtin names it with its group and version only', () => {
    expect(errors.get('cronjob-from-builtin.ts')).toEqual([
      expect.stringMatching(/^TS2305: Module '"kop\/runtime\/builtin"' has no exported member 'cronJobType'/),
    ]);
  });

  it("batch/v1's descriptor where the project's objects are meant does not compile", () => {
    expect(errors.get('crossed-kinds.ts')).toEqual([
      expect.stringMatching(
        /^TS2322: Type '.*batch-v1.*\.CronJob' is not assignable to type '.*cronjob\.types.*\.CronJob'/,
      ),
    ]);
  });
});
