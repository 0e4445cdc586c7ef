import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installedFromRegistry, isPackedSpec, kopSourceProblem, packKop } from '../../src/init/kop-source.js';
import { tempDir } from '../helpers/fake-context.js';
import { fakeNpmPack } from '../helpers/fake-npm-pack.js';

describe('kop source', () => {
  const project = '/work/projects/demo';
  const problems = [
    { given: '^0.1.0', want: undefined },
    { given: 'latest', want: undefined },
    { given: 'github:example/kop#v0.1.0', want: undefined },
    { given: 'https://example.com/kop-0.1.0.tgz', want: undefined },
    { given: 'file:../kop', want: undefined },
    { given: '../kop', want: undefined },
    { given: 'file:.kop/kop-0.1.0.tgz', want: undefined },
    { given: 'file:vendor/kop', want: undefined },
    { given: 'file:/home/me/kop', want: /absolute path/ },
    { given: '/home/me/kop', want: /absolute path/ },
    { given: '~/kop', want: /absolute path/ },
    { given: 'file://host/kop.tgz', want: /absolute path/ },
    { given: 'file:.', want: /the project itself/ },
    { given: 'file:../demo', want: /the project itself/ },
    { given: 'file:./node_modules/kop', want: /own node_modules/ },
    { given: 'node_modules', want: undefined }, // a registry name, not a path
    { given: '', want: /not an npm dependency spec/ },
    { given: '^0.1.0\n', want: /not an npm dependency spec/ },
  ];
  for (const { given, want } of problems) {
    it(`kopSourceProblem(${JSON.stringify(given)}) ${want ? `is ${want}` : 'is none'}`, () => {
      const problem = kopSourceProblem(given, project);
      if (want === undefined) expect(problem).toBeUndefined();
      else expect(problem).toMatch(want);
    });
  }

  const packed = [
    { given: 'file:.kop/kop-0.1.0.tgz', want: true },
    { given: 'file:./.kop/kop-1.2.3-rc.1.tgz', want: true },
    { given: 'file:.kop/other-0.1.0.tgz', want: false },
    { given: 'file:.kop/sub/kop-0.1.0.tgz', want: false },
    { given: 'file:../.kop/kop-0.1.0.tgz', want: false },
    { given: '^0.1.0', want: false },
  ];
  for (const { given, want } of packed) {
    it(`isPackedSpec(${JSON.stringify(given)}) is ${want}`, () => expect(isPackedSpec(given)).toBe(want));
  }

  describe("installedFromRegistry reads npm's lockfile of the node_modules kop is in", () => {
    let dir: string;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ dir, cleanup } = await tempDir('host')));
    afterEach(() => cleanup());

    async function install(kopPath: string, entry: object | undefined): Promise<string> {
      const kopRoot = path.join(dir, kopPath);
      await mkdir(kopRoot, { recursive: true });
      if (entry !== undefined) {
        await writeFile(
          path.join(dir, 'node_modules/.package-lock.json'),
          JSON.stringify({ lockfileVersion: 3, packages: { [kopPath]: entry } }),
        );
      }
      return kopRoot;
    }

    const cases = [
      {
        name: 'the registry tarball URL',
        given: { resolved: 'https://registry.npmjs.org/kop/-/kop-0.1.0.tgz', integrity: 'sha512-x', version: '0.1.0' },
        want: true,
      },
      {
        name: 'a private registry URL',
        given: {
          resolved: 'https://npm.corp.example/repository/npm/kop/-/kop-0.1.0.tgz',
          integrity: 'sha512-x',
          version: '0.1.0',
        },
        want: true,
      },
      {
        name: 'no URL (omit-lockfile-registry-resolved)',
        given: { integrity: 'sha512-x', version: '0.1.0' },
        want: true,
      },
      {
        name: 'a tarball file',
        given: { resolved: 'file:../kop-0.1.0.tgz', integrity: 'sha512-x', version: '0.1.0' },
        want: false,
      },
      { name: 'a link to a folder', given: { resolved: '../kop', link: true }, want: false },
      {
        name: 'a git URL',
        given: { resolved: 'git+ssh://git@github.com/example/kop.git#abc', version: '0.1.0' },
        want: false,
      },
      {
        name: 'some other URL',
        given: { resolved: 'https://example.com/downloads/kop.tgz', integrity: 'sha512-x', version: '0.1.0' },
        want: false,
      },
      { name: 'no lockfile (a global install)', given: undefined, want: false },
    ];
    for (const { name, given, want } of cases) {
      it(`${name}: ${want}`, async () => {
        const kopRoot = await install('node_modules/kop', given);
        expect(await installedFromRegistry(kopRoot)).toBe(want);
      });
    }

    it('finds kop nested under another package in the top-level lockfile', async () => {
      const kopRoot = await install('node_modules/tool/node_modules/kop', {
        resolved: 'https://registry.npmjs.org/kop/-/kop-0.1.0.tgz',
        version: '0.1.0',
      });
      expect(await installedFromRegistry(kopRoot)).toBe(true);
    });

    it('a clone (not in node_modules) is not from a registry', async () => {
      expect(await installedFromRegistry(path.join(dir, 'src/kop'))).toBe(false);
    });
  });

  it('packKop runs npm pack with an argument array and returns the tarball npm made', async () => {
    const pack = fakeNpmPack('1.2.3', Uint8Array.from([7, 8]));
    const packed = await packKop('/opt/kop', pack.exec);
    expect(packed).toEqual({ filename: 'kop-1.2.3.tgz', bytes: Uint8Array.from([7, 8]) });
    expect(pack.calls[0]!.args.slice(0, 2)).toEqual(['pack', '/opt/kop']);
  });

  it('packKop says what failed when npm pack fails', async () => {
    await expect(
      packKop('/opt/kop', async () => ({ exitCode: 1, stdout: '', stderr: 'ENOENT: no package.json' })),
    ).rejects.toThrow(/npm pack \/opt\/kop failed with exit code 1: ENOENT: no package\.json/);
  });
});
