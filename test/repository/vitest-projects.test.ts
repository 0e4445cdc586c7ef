import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { KOP_BIN, KOP_ROOT } from '../helpers/cli-project.js';
import { refusedCommand, refusedHost } from '../helpers/unit-guard-core.js';
import { E2E_TESTS, LIVE_TESTS } from '../helpers/vitest-projects.js';

/** Every kop test file under test/ (fixtures and the golden projects' own tests aside), relative to the root. */
async function kopTestFiles(): Promise<string[]> {
  const entries = await readdir(path.join(KOP_ROOT, 'test'), { recursive: true });
  return entries
    .map((entry) => path.posix.join('test', entry.split(path.sep).join('/')))
    .filter((file) => file.endsWith('.test.ts') && !/(^|\/)(fixtures|golden|node_modules)\//.test(file))
    .sort();
}

describe('the vitest projects unit, live and e2e', () => {
  it('put every test file in exactly one project, and every listed file exists', async () => {
    const vitest = path.join(KOP_ROOT, 'node_modules/vitest/vitest.mjs');
    // The child is a vitest of its own, not a worker of this one: none of this worker's VITEST* variables.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
    const { stdout } = await promisify(execFile)(process.execPath, [vitest, 'list', '--filesOnly', '--json'], {
      cwd: KOP_ROOT,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    const listed = JSON.parse(stdout) as Array<{ file: string; projectName: string }>;
    const projectsOf = new Map<string, string[]>();
    for (const { file, projectName } of listed) {
      const rel = path.relative(KOP_ROOT, file).split(path.sep).join('/');
      projectsOf.set(rel, [...(projectsOf.get(rel) ?? []), projectName]);
    }
    expect([...projectsOf.keys()].sort()).toEqual(await kopTestFiles());
    const inTwo = [...projectsOf].filter(([, projects]) => projects.length !== 1);
    expect(inTwo).toEqual([]);
    expect(new Set(listed.map((l) => l.projectName))).toEqual(new Set(['unit', 'live', 'e2e']));

    // A file named in a list that no longer exists (renamed, moved) would land in `unit` unnoticed.
    const named = [...LIVE_TESTS, ...E2E_TESTS].filter((entry) => !entry.includes('*'));
    expect(named.filter((file) => !existsSync(path.join(KOP_ROOT, file)))).toEqual([]);
    for (const file of named) expect(projectsOf.has(file), file).toBe(true);
  });
});

describe('the unit guard (test/helpers/unit-guard.ts)', () => {
  it.each([
    ['kube-apiserver', [], /control plane \(kube-apiserver\).*LIVE_TESTS/],
    ['/home/me/.cache/kop/envtest/1.36.3/etcd', ['--version'], /control plane \(etcd\).*LIVE_TESTS/],
    ['npm', ['ci'], /runs npm.*E2E_TESTS/],
    ['/usr/bin/npx', ['tsc'], /runs npx/],
    ['go', ['version'], /runs go/],
    ['node', ['/repo/bin/kop.js', 'init'], /built CLI/],
    [process.execPath, ['--no-warnings', 'dist/cli/main.js'], /built CLI/],
  ])('refuses %s %j', (command, args, says) => {
    expect(refusedCommand(command, args)).toMatch(says);
  });

  it.each([
    ['node', ['-e', '0']],
    [process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.']],
    ['git', ['status']],
    ['kubectl', ['kustomize', 'config/default']],
  ])('lets %s %j run', (command, args) => {
    expect(refusedCommand(command, args)).toBeUndefined();
  });

  it('refuses connections off this machine and lets loopback through', () => {
    for (const host of ['example.com', 'proxy.golang.org', '10.0.0.1', '2001:db8::1'])
      expect(refusedHost(host)).toMatch(/off this machine.*E2E_TESTS/);
    for (const host of [undefined, 'localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]'])
      expect(refusedHost(host)).toBeUndefined();
  });

  it('is installed in this project: child_process, execa and net refuse, naming the project', async () => {
    expect(() => spawn('npm', ['--version'])).toThrow(/is in the vitest project `unit` but runs npm/);
    expect(() => spawnSync('kube-apiserver', ['--version'])).toThrow(/starts a control plane/);
    await expect(execa('node', [KOP_BIN, '--version'])).rejects.toThrow(/runs the built CLI/);
    expect(() => connect(443, 'example.com')).toThrow(/connects to example\.com/);
    const allowed = await execa(process.execPath, ['-e', 'process.stdout.write("ok")']);
    expect(allowed.stdout).toBe('ok');
    // The wrappers keep what util.promisify reads: { stdout, stderr }, as unguarded.
    expect(await promisify(execFile)(process.execPath, ['-e', 'process.stdout.write("ok")'])).toEqual({
      stdout: 'ok',
      stderr: '',
    });
  });
});
