import { readFile, readdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KopError } from '../../src/base/errors.js';
import { runInit } from '../../src/init/run-init.js';
import { runUpdatePack } from '../../src/init/run-update-pack.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { tempDir, testContext } from '../helpers/fake-context.js';
import { fakeNpmPack } from '../helpers/fake-npm-pack.js';

describe('kop update-pack', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir('demo')));
  afterEach(() => cleanup());
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');

  it('moves a project onto kop packed into .kop/: tarball, package.json, PROJECT, then npm install of that spec', async () => {
    await runInit(
      { domain: 'example.com', owner: 'x', kopSource: 'file:../kop', skipInstall: true },
      testContext({ cwd: dir }),
    );
    const pkgBefore = JSON.parse(await read('package.json'));
    const pack = fakeNpmPack('0.3.0', Uint8Array.from([5, 6, 7]));
    const context = testContext({ cwd: dir, exec: pack.exec });
    await runUpdatePack({}, context);

    expect(context.out.lines).toEqual(
      expect.arrayContaining(['CREATE .kop/kop-0.3.0.tgz', 'UPDATE PROJECT', 'UPDATE package.json']),
    );
    expect(new Uint8Array(await readFile(path.join(dir, '.kop/kop-0.3.0.tgz')))).toEqual(Uint8Array.from([5, 6, 7]));
    const pkg = JSON.parse(await read('package.json'));
    expect(pkg).toEqual({ ...pkgBefore, dependencies: { ...pkgBefore.dependencies, kop: 'file:.kop/kop-0.3.0.tgz' } });
    expect(parseProjectFile(await read('PROJECT')).kopSource).toBe('file:.kop/kop-0.3.0.tgz');
    expect(pack.calls.at(-1)).toEqual({
      file: 'npm',
      args: ['install', '--no-audit', '--no-fund', 'kop@file:.kop/kop-0.3.0.tgz'],
      cwd: dir,
    });
    // The Dockerfile scaffolded for the registry-less file:../kop does not copy .kop/: said, not edited.
    expect(context.out.warnings.join('\n')).toMatch(
      /Dockerfile does not copy \.kop\/ into the image build[^]*add `COPY \.kop\/ \.kop\/` before its `RUN npm ci`/,
    );
  });

  it('the same kop again is no change and runs nothing; a newer one replaces the old tarball', async () => {
    const pack = fakeNpmPack('0.1.0');
    await runInit({ domain: 'example.com', owner: 'x', skipInstall: true }, testContext({ cwd: dir, exec: pack.exec }));
    const calls = pack.calls.length;
    const same = testContext({ cwd: dir, exec: pack.exec });
    await runUpdatePack({}, same);
    expect(same.out.lines).toEqual(['no changes']);
    expect(same.out.warnings).toEqual([]);
    expect(pack.calls.slice(calls).map((call) => call.args[0])).toEqual(['pack']);

    pack.set('0.2.0', Uint8Array.from([2]));
    const newer = testContext({ cwd: dir, exec: pack.exec });
    await runUpdatePack({ skipInstall: true }, newer);
    expect(newer.out.lines).toEqual(expect.arrayContaining(['CREATE .kop/kop-0.2.0.tgz', 'DELETE .kop/kop-0.1.0.tgz']));
    expect(newer.out.lines.join('\n')).toContain('Run `npm install --no-audit --no-fund kop@file:.kop/kop-0.2.0.tgz`');
    expect(await readdir(path.join(dir, '.kop'))).toEqual(['kop-0.2.0.tgz']);
    expect(pack.calls.at(-1)!.args[0]).toBe('pack');
  });

  it('keeps package.json as the user wrote it apart from the kop entry, in the list that has it', async () => {
    await runInit(
      { domain: 'example.com', owner: 'x', kopSource: '^0.1.0', skipInstall: true },
      testContext({ cwd: dir }),
    );
    const manifest = {
      name: 'demo',
      scripts: { x: 'y' },
      dependencies: { zod: '^4.0.0' },
      devDependencies: { kop: '^0.1.0' },
      custom: [1, 2],
    };
    await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 4)}\n`);
    await runUpdatePack({ skipInstall: true }, testContext({ cwd: dir, exec: fakeNpmPack().exec }));
    expect(await read('package.json')).toBe(
      `${JSON.stringify({ ...manifest, devDependencies: { kop: 'file:.kop/kop-0.1.0.tgz' } }, null, 4)}\n`,
    );
  });

  it('outside a kop project it writes nothing and says so', async () => {
    const error = await runUpdatePack({}, testContext({ cwd: dir, exec: fakeNpmPack().exec })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KopError);
    expect((error as Error).message).toMatch(/no PROJECT file .*: this is not a kop project/);
    expect(await readdir(dir)).toEqual([]);
  });
});
