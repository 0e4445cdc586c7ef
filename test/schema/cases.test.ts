import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CASES_DIR, generateCaseYaml, listCaseDirs, UPDATE_GOLDEN } from './run-case.js';

const cases = await listCaseDirs(CASES_DIR);

describe('schema cases: types.ts -> crd.yaml', () => {
  it('has cases', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  for (const name of cases) {
    it(name, async () => {
      const dir = path.join(CASES_DIR, name);
      const actual = await generateCaseYaml(dir);
      const expectedFile = path.join(dir, 'crd.yaml');
      if (UPDATE_GOLDEN) await fs.writeFile(expectedFile, actual);
      const expected = await fs.readFile(expectedFile, 'utf8');
      expect(actual).toBe(expected);
      // Deterministic: a second run gives identical bytes.
      expect(await generateCaseYaml(dir)).toBe(actual);
    });
  }
});
