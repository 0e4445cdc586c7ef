// `kop setup-envtest` wall time, as a user runs it (`node bin/kop.js setup-envtest`, node start-up
// included), two ways:
//   download: a fresh --bin-dir each run, from an index and archive served on 127.0.0.1 (these
//             machines cannot reach controller-tools' index); the archive is made here from the real
//             kube-apiserver, etcd and kubectl, laid out and gzipped as controller-tools does, so the
//             download, sha512 check, unpacking and version checks work on real sizes.
//   warm:     the same command again on a folder that has the binaries (version checks only).
// Prints every run and the medians. Needs `npm run build`, `tar` on PATH, and the binaries
// (`node bin/kop.js setup-envtest`) to pack.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { findControlPlaneBinaries, PINNED_KUBERNETES_VERSION } from '../dist/testing/index.js';

const run = promisify(execFile);
const kop = fileURLToPath(new URL('../bin/kop.js', import.meta.url));
const downloadRuns = Number(process.env.RUNS ?? 3);
const warmRuns = Number(process.env.WARM_RUNS ?? 5);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const platform = `${{ linux: 'linux', darwin: 'darwin' }[process.platform]}-${{ x64: 'amd64', arm64: 'arm64' }[process.arch]}`;
const archiveName = `envtest-v${PINNED_KUBERNETES_VERSION}-${platform}.tar.gz`;
const work = mkdtempSync(join(tmpdir(), 'kop-bench-setup-envtest-'));

const binaries = findControlPlaneBinaries();
if (!binaries.kubectl)
  throw new Error('kubectl not found next to kube-apiserver: run `node bin/kop.js setup-envtest` first');
const layout = join(work, 'layout', 'controller-tools', 'envtest');
mkdirSync(layout, { recursive: true });
copyFileSync(binaries.kubeApiServer, join(layout, 'kube-apiserver'));
copyFileSync(binaries.etcd, join(layout, 'etcd'));
copyFileSync(binaries.kubectl, join(layout, 'kubectl'));
const archive = join(work, archiveName);
await run('tar', ['-czf', archive, '-C', join(work, 'layout'), 'controller-tools']);
rmSync(join(work, 'layout'), { recursive: true });
const hash = createHash('sha512').update(readFileSync(archive)).digest('hex');
const archiveBytes = statSync(archive).size;

const server = createServer((request, response) => {
  if (request.url === '/index.yaml') {
    const index = `releases:\n  v${PINNED_KUBERNETES_VERSION}:\n    ${archiveName}:\n      hash: ${hash}\n      selfLink: /releases/${archiveName}\n`;
    response.writeHead(200, { 'content-type': 'text/yaml' }).end(index);
  } else if (request.url === `/releases/${archiveName}`) {
    response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': String(archiveBytes) });
    createReadStream(archive).pipe(response);
  } else {
    response.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const indexUrl = `http://127.0.0.1:${server.address().port}/index.yaml`;

async function setupEnvtest(binDir) {
  const started = process.hrtime.bigint();
  const { stdout, stderr } = await run('node', [
    kop,
    'setup-envtest',
    '--index-url',
    indexUrl,
    '--bin-dir',
    binDir,
    '--print',
    'path',
  ]);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (stdout.trim() !== binDir) throw new Error(`setup-envtest printed ${stdout}\n${stderr}`);
  return { seconds, how: stderr.trim().split('\n').at(-1) };
}

try {
  console.log(`archive: ${archiveName}, ${(archiveBytes / 1024 / 1024).toFixed(1)} MB, served from ${indexUrl}`);
  const downloads = [];
  const warm = [];
  for (let i = 0; i < downloadRuns; i++) {
    const binDir = join(work, `bin-${i}`);
    const { seconds, how } = await setupEnvtest(binDir);
    if (!/downloaded/.test(how)) throw new Error(`run ${i + 1} did not download: ${how}`);
    downloads.push(seconds);
    console.log(`download run ${i + 1}: ${seconds.toFixed(2)} s (${how.replace(/^setup-envtest: /, '')})`);
    rmSync(binDir, { recursive: true });
  }
  const binDir = join(work, 'bin-warm');
  await setupEnvtest(binDir);
  for (let i = 0; i < warmRuns; i++) {
    const { seconds, how } = await setupEnvtest(binDir);
    if (!/already in/.test(how)) throw new Error(`warm run ${i + 1} did not reuse the binaries: ${how}`);
    warm.push(seconds);
    console.log(`warm run ${i + 1}: ${seconds.toFixed(2)} s`);
  }
  console.log(
    `setup-envtest from the local test server: median ${median(downloads).toFixed(2)} s over ${downloadRuns} runs`,
  );
  console.log(
    `setup-envtest with the binaries already in place (warm): median ${median(warm).toFixed(2)} s over ${warmRuns} runs`,
  );
} finally {
  server.close();
  rmSync(work, { recursive: true, force: true });
}
