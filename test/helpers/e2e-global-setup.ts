import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where test/helpers/typecheck-server.mjs listens (http://127.0.0.1:<port>), for test/helpers/typecheck.ts. */
    typecheckServer: string;
    /** A folder holding an `npm` that answers `npm pack <kop>` with the run's one packed kop (see packOnce). */
    sharedPackBin: string;
    /** The run's one packed kop unpacked as npm installs it, beside links to kop's own dependencies (see unpackOnce). */
    sharedKop: string;
  }
}

const SERVER = fileURLToPath(new URL('./typecheck-server.mjs', import.meta.url));
const KOP_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The e2e project's global setup (vitest.config.ts): what the run's test files share, made once and
 * handed over with `provide`. Each is an optimisation only: a test file run outside the project
 * (inject gives undefined) does the work itself.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [server, pack] = await Promise.all([startTypecheckServer(), packOnce()]);
  project.provide('typecheckServer', server.url);
  project.provide('sharedPackBin', pack.bin);
  project.provide('sharedKop', await unpackOnce(pack));
  return async () => {
    await server.stop();
    await rm(pack.dir, { recursive: true, force: true });
  };
}

/** Starts test/helpers/typecheck-server.mjs, the one TypeScript compiler the run's type checks share. */
async function startTypecheckServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = spawn(process.execPath, [SERVER], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    server.stdout!.setEncoding('utf8');
    server.stdout!.on('data', (chunk: string) => {
      seen += chunk;
      const line = /^(\{.*\})\n/m.exec(seen);
      if (line) resolve((JSON.parse(line[1]!) as { port: number }).port);
    });
    server.once('error', reject);
    server.once('exit', (code) => reject(new Error(`the type-check service exited (${code}) before it listened`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill();
      await exited;
    },
  };
}

/**
 * `kop init` packs kop into every project it makes (`npm pack <kop>`, some 4 s of CPU), and the
 * e2e files make some twenty projects from the same kop. This packs it once, with the real npm and
 * the arguments kop uses, and writes an `npm` for the PATH of the CLI runs that answers exactly that
 * command with a copy of the tarball and npm's own report; every other npm command goes to the real npm.
 * npm packs the same files into the same bytes (fixed timestamps), so the projects get what they would.
 */
async function packOnce(): Promise<{ dir: string; bin: string; tarball: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'kop-e2e-shared-pack-'));
  const kopRoot = path.resolve(KOP_ROOT);
  const npm = (await execa('sh', ['-c', 'command -v npm'])).stdout.trim();
  const packed = await execa(npm, ['pack', kopRoot, '--pack-destination', dir, '--json', '--ignore-scripts'], {
    cwd: dir,
    stdin: 'ignore',
  });
  const filename = (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename;
  await writeFile(path.join(dir, 'report.json'), `${packed.stdout}\n`);
  const bin = path.join(dir, 'bin');
  await mkdir(bin);
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  // Only `npm pack <kop root>[/] --pack-destination <dir> ...`: anything else, or a pack of anything else, is npm's.
  const script = `#!/bin/sh
if [ "$1" = pack ] && { [ "$2" = ${quote(kopRoot)} ] || [ "$2" = ${quote(`${kopRoot}/`)} ]; } && [ "$3" = --pack-destination ] && [ -n "$4" ]; then
  cp ${quote(path.join(dir, filename))} "$4/" && cat ${quote(path.join(dir, 'report.json'))}
  exit $?
fi
exec ${quote(npm)} "$@"
`;
  await writeFile(path.join(bin, 'npm'), script);
  await chmod(path.join(bin, 'npm'), 0o755);
  return { dir, bin, tarball: path.join(dir, filename) };
}

/**
 * The projects the e2e files make link kop into their node_modules instead of installing it. A link
 * to this checkout is a folder outside any node_modules once resolved, and vitest runs such a folder's
 * modules through its own transform and module runner, again in every test file's process, where a
 * user's project, kop installed under node_modules, has Node load them. So the run unpacks its one
 * pack once, as npm installs it, into <pack dir>/installed/node_modules/kop, with kop's own
 * dependencies linked beside it (where Node looks from kop's files), and the projects link that
 * folder: vitest loads kop as Node does, and the type-check service sees the same kop files in every
 * project, parsed once. Returns the kop folder.
 */
async function unpackOnce(pack: { dir: string; tarball: string }): Promise<string> {
  const modules = path.join(pack.dir, 'installed/node_modules');
  const kop = path.join(modules, 'kop');
  await mkdir(kop, { recursive: true });
  // npm's tarballs hold the package under package/.
  await execa('tar', ['-xzf', pack.tarball, '--strip-components=1', '-C', kop]);
  for (const entry of await readdir(path.join(KOP_ROOT, 'node_modules'))) {
    if (entry !== '.cache' && entry !== '.bin' && entry !== 'kop')
      await symlink(path.join(KOP_ROOT, 'node_modules', entry), path.join(modules, entry), 'dir');
  }
  return kop;
}
