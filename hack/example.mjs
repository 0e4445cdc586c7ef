#!/usr/bin/env node
// Runs examples/redis-operator on the embedded control plane, as a new user would after the
// Quick start: `kop init` in a temp folder (kop and its dependencies linked from this checkout,
// so no registry is needed), `kop create api` for v1alpha1 and v1beta1, `kop create webhook`,
// the example's files copied over the scaffold, then `kop dev --samples`, which generates,
// starts kube-apiserver + etcd, installs the CRD and webhooks, runs the manager and applies the
// samples. Ctrl-C stops everything; the temp folder is removed. Needs `npm run build` and the
// test binaries (`node bin/kop.js setup-envtest`).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REDIS_EXAMPLE_COMMANDS } from './redis-example.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const kopBin = path.join(root, 'bin/kop.js');
const example = path.join(root, 'examples/redis-operator');
if (!existsSync(path.join(root, 'dist/cli/main.js'))) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}

const parent = mkdtempSync(path.join(tmpdir(), 'kop-example-'));
const project = path.join(parent, 'redis-operator');
mkdirSync(project);
const cleanup = () => rmSync(parent, { recursive: true, force: true });

function kop(args) {
  const result = spawnSync(process.execPath, [kopBin, ...args], {
    cwd: project,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, CI: 'true' },
  });
  if (result.status !== 0) {
    console.error(`kop ${args.join(' ')} failed`);
    cleanup();
    process.exit(1);
  }
}

console.log(`example project: ${project}`);
kop([
  'init',
  '--domain',
  'example.com',
  '--project-name',
  'redis-operator',
  '--owner',
  'Example',
  '--skip-install',
  '--yes',
]);
// As `npm install` would, but from this checkout: kop and its dependencies, and the `kop` command.
mkdirSync(path.join(project, 'node_modules/.bin'), { recursive: true });
for (const entry of readdirSync(path.join(root, 'node_modules'))) {
  if (entry !== '.bin' && entry !== '.cache')
    symlinkSync(path.join(root, 'node_modules', entry), path.join(project, 'node_modules', entry), 'dir');
}
symlinkSync(root, path.join(project, 'node_modules/kop'), 'dir');
for (const tool of readdirSync(path.join(root, 'node_modules/.bin')))
  symlinkSync(path.join(root, 'node_modules/.bin', tool), path.join(project, 'node_modules/.bin', tool));
symlinkSync(kopBin, path.join(project, 'node_modules/.bin/kop'));

for (const args of REDIS_EXAMPLE_COMMANDS) kop(args);
for (const folder of ['api', 'src', 'config'])
  cpSync(path.join(example, folder), path.join(project, folder), { recursive: true });
// The scaffolded tests are for the scaffolded code, which the example replaces.
for (const tests of ['test/controllers', 'test/webhooks/cache'])
  rmSync(path.join(project, tests), { recursive: true, force: true });

console.log('starting kop dev --samples (Ctrl-C stops it)');
const dev = spawn(process.execPath, [kopBin, 'dev', '--samples'], { cwd: project, stdio: 'inherit' });
const forward = (signal) => dev.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
dev.on('exit', (code, signal) => {
  cleanup();
  process.exit(code ?? (signal ? 0 : 1));
});
