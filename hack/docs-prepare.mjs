// Gets the book ready to build or serve (`npm run docs`, `npm run docs:build` run it first):
// installs docs/'s own dependencies when they are missing or older than docs/package-lock.json
// (`npm ci --prefix docs`; the site's tools stay out of kop's dependencies), builds kop when
// dist/ is missing, and regenerates the reference pages from kop's code.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (command, args) => execFileSync(command, args, { cwd: repo, stdio: 'inherit' });

const installed = path.join(repo, 'docs/node_modules/.package-lock.json');
const lockfile = path.join(repo, 'docs/package-lock.json');
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lockfile).mtimeMs) {
  run(npm, ['ci', '--prefix', 'docs', '--no-audit', '--no-fund']);
}
if (!existsSync(path.join(repo, 'dist/cli/main.js'))) run(npm, ['run', 'build']);
run(process.execPath, ['hack/gen-reference.mjs']);
