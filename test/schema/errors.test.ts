import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KopError } from '../../src/base/errors.js';
import { ApiSyntaxError, SchemaError, SchemaErrors, StructuralSchemaError } from '../../src/schema/errors.js';
import { ERRORS_DIR, generateCaseYaml, listCaseDirs, UPDATE_GOLDEN } from './run-case.js';

const cases = await listCaseDirs(ERRORS_DIR);

/** What the user sees: the error class, the one-line message and the hint. */
function describeError(error: unknown): string {
  if (!(error instanceof KopError)) throw error;
  return `${error.name}: ${error.message}${error.hint ? `\nhint: ${error.hint}` : ''}\n`;
}

describe('schema errors: bad types.ts -> error.txt', () => {
  it('has cases', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  for (const name of cases) {
    it(name, async () => {
      const dir = path.join(ERRORS_DIR, name);
      let actual: string | undefined;
      try {
        await generateCaseYaml(dir);
      } catch (error) {
        expect(
          error instanceof SchemaError ||
            error instanceof SchemaErrors ||
            error instanceof StructuralSchemaError ||
            error instanceof ApiSyntaxError,
          String(error),
        ).toBe(true);
        actual = describeError(error);
      }
      expect(actual, `${name} generated without an error`).toBeDefined();
      const expectedFile = path.join(dir, 'error.txt');
      if (UPDATE_GOLDEN) await fs.writeFile(expectedFile, actual!);
      expect(actual).toBe(await fs.readFile(expectedFile, 'utf8'));
    });
  }
});
