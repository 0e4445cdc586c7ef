import { describe, expect, it } from 'vitest';
import { mergeLines } from '../../src/scaffold/line-diff.js';
import { mergePackageJson } from '../../src/alpha/merge-package-json.js';
import { mergeProject } from '../../src/alpha/merge-trees.js';
import { snapshotOf } from '../../src/alpha/replay.js';

const labels = { ours: 'ours', theirs: 'kop 0.2.0' };
/** package.json as npm (and kop's scaffold) writes it. */
const npmJson = (value: unknown, indent: string | number = 2) => `${JSON.stringify(value, null, indent)}\n`;

/** The scaffold of an older kop, as a user's project starts. */
const base = {
  name: 'demo',
  version: '0.1.0',
  type: 'module',
  scripts: { build: 'tsc -p tsconfig.build.json', lint: 'eslint src', test: 'vitest run' },
  dependencies: { kop: 'file:.kop/kop-0.1.0.tgz' },
  devDependencies: { '@types/node': '^24.0.0', typescript: '~5.8.0', vitest: '^3.2.0' },
};
/** What a newer kop scaffolds: its dependency, two versions, a script changed and one added. */
const theirs = {
  ...base,
  scripts: { build: 'tsc -p tsconfig.build.json', lint: 'eslint .', 'lint:fix': 'eslint . --fix', test: 'vitest run' },
  dependencies: { kop: 'file:.kop/kop-0.2.0.tgz' },
  devDependencies: { '@types/node': '^24.10.0', typescript: '~5.9.3', vitest: '^3.2.0' },
};

describe('mergePackageJson (three-way merge by keys)', () => {
  const cases: {
    name: string;
    ours: Record<string, unknown>;
    want?: Record<string, unknown>;
    wantText?: string;
    conflicts?: string[];
  }[] = [
    {
      name: 'your dependencies and scripts stay, kop’s changes are taken, dependency maps stay sorted',
      ours: {
        ...base,
        scripts: { ...base.scripts, 'db:seed': 'node hack/seed.mjs' },
        dependencies: { kop: base.dependencies.kop, zod: '^4.0.0', '@acme/util': '^1.2.0' },
        // As npm install -D writes them: sorted.
        devDependencies: {
          '@types/node': '^24.0.0',
          '@types/pg': '^8.0.0',
          'ts-node': '^10.0.0',
          typescript: '~5.8.0',
          vitest: '^3.2.0',
        },
      },
      wantText: npmJson({
        ...theirs,
        scripts: {
          build: 'tsc -p tsconfig.build.json',
          lint: 'eslint .',
          'lint:fix': 'eslint . --fix',
          test: 'vitest run',
          'db:seed': 'node hack/seed.mjs',
        },
        // Yours were not sorted here: kop's change is made in place, your order kept.
        dependencies: { kop: 'file:.kop/kop-0.2.0.tgz', zod: '^4.0.0', '@acme/util': '^1.2.0' },
        devDependencies: {
          '@types/node': '^24.10.0',
          '@types/pg': '^8.0.0',
          'ts-node': '^10.0.0',
          typescript: '~5.9.3',
          vitest: '^3.2.0',
        },
      }),
      conflicts: [],
    },
    {
      name: 'a key you changed and kop did not stays yours; one you removed stays removed',
      ours: {
        ...base,
        scripts: { build: 'tsc -b', test: 'vitest run' },
        devDependencies: { ...base.devDependencies, vitest: '^3.2.4' },
      },
      want: {
        ...theirs,
        // lint: you removed it and kop changed it: a conflict (below); build is yours.
        devDependencies: { ...theirs.devDependencies, vitest: '^3.2.4' },
      },
      conflicts: ['scripts.lint'],
    },
    {
      name: 'a conflict where both changed the same key to different values',
      ours: { ...base, devDependencies: { ...base.devDependencies, typescript: '~5.8.3' } },
      conflicts: ['devDependencies.typescript'],
    },
    {
      name: 'the same change on both sides is no conflict',
      ours: { ...base, devDependencies: { ...base.devDependencies, typescript: '~5.9.3' } },
      want: theirs,
      conflicts: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const merged = mergePackageJson(npmJson(base), npmJson(c.ours), npmJson(theirs), labels)!;
      expect(merged.conflicts).toEqual(c.conflicts ?? []);
      if (c.wantText !== undefined) expect(merged.text).toBe(c.wantText);
      if (c.want !== undefined && merged.conflicts.length === 0) expect(JSON.parse(merged.text)).toEqual(c.want);
    });
  }

  /** The file with each conflict block resolved to one side. */
  const resolve = (text: string, side: 'ours' | 'theirs') =>
    text.replace(/^<<<<<<< ours\n([^]*?)^=======\n([^]*?)^>>>>>>> [^\n]*\n/gm, (_all, ours: string, theirs: string) =>
      side === 'ours' ? ours : theirs,
    );

  it('writes a conflict as a block per key, each side valid JSON once resolved', () => {
    const ours = { ...base, devDependencies: { ...base.devDependencies, typescript: '~5.8.3' } };
    const merged = mergePackageJson(npmJson(base), npmJson(ours), npmJson(theirs), labels)!;
    expect(merged.text).toContain(
      '    "@types/node": "^24.10.0",\n<<<<<<< ours\n    "typescript": "~5.8.3",\n=======\n    "typescript": "~5.9.3",\n>>>>>>> kop 0.2.0\n    "vitest": "^3.2.0"\n',
    );
    expect(JSON.parse(resolve(merged.text, 'ours')).devDependencies.typescript).toBe('~5.8.3');
    expect(JSON.parse(resolve(merged.text, 'theirs'))).toEqual(theirs);
  });

  it('a last key removed on one side takes the key before it into the block, so no comma dangles', () => {
    const scripts = { build: 'tsc', test: 'vitest run' };
    const mine = { ...base, scripts: { build: 'tsc' } };
    const kops = { ...base, scripts: { build: 'tsc', test: 'vitest run --coverage' } };
    const merged = mergePackageJson(npmJson({ ...base, scripts }), npmJson(mine), npmJson(kops), labels)!;
    expect(merged.conflicts).toEqual(['scripts.test']);
    expect(JSON.parse(resolve(merged.text, 'ours')).scripts).toEqual({ build: 'tsc' });
    expect(JSON.parse(resolve(merged.text, 'theirs')).scripts).toEqual(kops.scripts);
  });

  it('keeps your indentation, line ends and final newline, as npm does', () => {
    const ours = { ...base, dependencies: { ...base.dependencies, zod: '^4.0.0' } };
    const tabs = npmJson(ours, '\t').replace(/\n/g, '\r\n');
    const merged = mergePackageJson(npmJson(base), tabs, npmJson(theirs), labels)!;
    expect(merged.text).toBe(
      npmJson({ ...theirs, dependencies: { ...theirs.dependencies, zod: '^4.0.0' } }, '\t').replace(/\n/g, '\r\n'),
    );
  });

  it('is undefined when a side is not a JSON object (the caller merges by lines)', () => {
    expect(mergePackageJson(npmJson(base), '{ "name": ', npmJson(theirs), labels)).toBeUndefined();
    expect(mergePackageJson(npmJson(base), '[]', npmJson(theirs), labels)).toBeUndefined();
  });

  it('where a merge by lines conflicts (your dependency next to kop’s changed line), the merge by keys does not', () => {
    const ours = npmJson({ ...base, dependencies: { ...base.dependencies, zod: '^4.0.0' } });
    expect(mergeLines(npmJson(base), ours, npmJson(theirs), labels).conflicts).toBeGreaterThan(0);
    expect(mergePackageJson(npmJson(base), ours, npmJson(theirs), labels)!.conflicts).toEqual([]);
  });
});

describe('mergeProject and npm files', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');
  it('merges package.json by keys, reports the keys in conflict, and leaves lockfiles alone', async () => {
    const lock = (version: string) => bytes(npmJson({ name: 'demo', lockfileVersion: 3, version }));
    const baseFiles = snapshotOf([
      ['package.json', bytes(npmJson(base))],
      ['package-lock.json', lock('1')],
    ]);
    const theirFiles = snapshotOf([
      ['package.json', bytes(npmJson(theirs))],
      ['package-lock.json', lock('2')],
    ]);
    const ours = new Map([
      ['package.json', bytes(npmJson({ ...base, devDependencies: { ...base.devDependencies, typescript: '~5.8.3' } }))],
      ['package-lock.json', lock('mine')],
    ]);
    const outcomes = await mergeProject(baseFiles, theirFiles, async (file) => ours.get(file), 'kop 0.2.0');
    expect(outcomes.map((o) => o.path)).toEqual(['package.json']);
    expect(outcomes[0]).toMatchObject({
      outcome: 'conflict',
      conflicts: 1,
      reason: 'a key you and kop 0.2.0 both changed: devDependencies.typescript',
    });
  });
});
