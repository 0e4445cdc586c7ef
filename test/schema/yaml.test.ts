import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { toYaml } from '../../src/scaffold/yaml.js';
import { CASES_DIR, listCaseDirs } from './run-case.js';

const tricky = [
  '',
  ' lead',
  'trail ',
  'true',
  'False',
  'yes',
  'No',
  'on',
  'null',
  '~',
  'y',
  '1',
  '-1',
  '1.5',
  '.5',
  '1e3',
  '0x1F',
  '0o17',
  '.inf',
  '-.Inf',
  '.NaN',
  '12:30',
  '- dash',
  '? q',
  ': c',
  '#hash',
  'a #b',
  'a: b',
  'ends:',
  '[x]',
  '{x}',
  '*ref',
  '&anchor',
  '!tag',
  '|pipe',
  '>fold',
  "'single'",
  '"double"',
  '%pct',
  '@at',
  '`tick',
  'tab\there',
  'nl\n',
  '\nlead',
  'multi\nline',
  'multi\n\nblank',
  'trailing \nspace',
  'uni ☃ code',
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))$',
  "it's",
  'a,b',
  'x=y',
  '/path',
  'ctl\u0001',
];

describe('toYaml', () => {
  it('round-trips tricky strings as values and keys', () => {
    for (const text of tricky) {
      expect(parse(toYaml({ [text]: text, list: [text, { [text]: [text] }] }))).toEqual({
        [text]: text,
        list: [text, { [text]: [text] }],
      });
    }
  });
  it('round-trips numbers, booleans, null and empty containers', () => {
    const value = {
      a: 1,
      b: -2.5,
      c: 1e21,
      d: true,
      e: false,
      f: null,
      g: [],
      h: {},
      i: [[], {}, [1, [2]]],
      j: [{ k: [{}] }],
    };
    expect(parse(toYaml(value))).toEqual(value);
  });
  it('writes sorted keys, sequences at the parent indentation and literal blocks', () => {
    expect(toYaml({ b: ['x', { d: 1, c: 'two\nlines' }], a: {} })).toBe(
      'a: {}\nb:\n- x\n- c: |-\n    two\n    lines\n  d: 1\n',
    );
  });
  it('reads back every case CRD exactly', async () => {
    for (const name of await listCaseDirs(CASES_DIR)) {
      for (const doc of parseAllDocuments(await fs.readFile(path.join(CASES_DIR, name, 'crd.yaml'), 'utf8'))) {
        const value = doc.toJS();
        expect(parse(toYaml(value))).toEqual(value);
        expect(parse(stringify(value))).toEqual(parse(toYaml(value)));
      }
    }
  });
});
