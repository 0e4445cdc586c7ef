// The inner loop of `kop dev` (issue 14's figures), in a project made by the built CLI
// (`kop init` + `kop create api`, kop and its dependencies linked into node_modules as the
// end-to-end tests do, so no registry is needed):
//   - edit of the reconciler -> kop dev's status line "manager restarted, ready" (rebuilt,
//     restarted, caches synced), and -> the sample's Ready condition carrying the edited
//     message (the new code has reconciled): median of EDITS (10) edits; aim < 2 s;
//   - edit of the API type (a new field) -> the status line saying the CRD was reinstalled
//     and the manager restarted and ready: median of API_EDITS (5) edits; aim < 4 s.
// Also prints kop dev's start-up (control plane, CRD, sample, manager) and the time a
// SIGINT takes to stop everything. Needs `npm run build` and `kop setup-envtest` first.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const kop = path.join(root, 'bin/kop.js');
const EDITS = Number(process.env.EDITS ?? 10);
const API_EDITS = Number(process.env.API_EDITS ?? 5);
const CONTROLLER = 'src/controllers/rediscluster.controller.ts';
const TYPES = 'api/cache/v1alpha1/rediscluster.types.ts';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (ms) => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`);
const summary = (values) =>
  `median ${fmt(median(values))} (min ${fmt(Math.min(...values))}, max ${fmt(Math.max(...values))})`;

function run(args, cwd) {
  const result = spawnSync(process.execPath, [kop, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: 'true' },
  });
  if (result.status !== 0) throw new Error(`kop ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
}

/** A project as a new user makes it, with node_modules linked to kop's (as test/helpers/cli-project.ts does). */
function makeProject() {
  const parent = mkdtempSync(path.join(tmpdir(), 'kop-bench-dev-'));
  const project = path.join(parent, 'demo');
  mkdirSync(project);
  run(
    ['init', '--domain', 'example.com', '--project-name', 'demo', '--owner', 'Demo', '--skip-install', '--yes'],
    project,
  );
  mkdirSync(path.join(project, 'node_modules/.bin'), { recursive: true });
  for (const entry of readdirSync(path.join(root, 'node_modules'))) {
    if (entry !== '.cache' && entry !== '.bin')
      symlinkSync(path.join(root, 'node_modules', entry), path.join(project, 'node_modules', entry), 'dir');
  }
  symlinkSync(root, path.join(project, 'node_modules/kop'), 'dir');
  for (const tool of readdirSync(path.join(root, 'node_modules/.bin')))
    symlinkSync(path.join(root, 'node_modules/.bin', tool), path.join(project, 'node_modules/.bin', tool));
  symlinkSync(kop, path.join(project, 'node_modules/.bin/kop'));
  run(['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'RedisCluster', '--yes'], project);
  return { parent, project };
}

/** `kop dev --samples` with its output lines, each stamped with when it arrived. */
function startDev(project) {
  const child = spawn(process.execPath, [kop, 'dev', '--samples'], {
    cwd: project,
    env: { ...process.env, NO_COLOR: '1', CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = [];
  let partial = '';
  const onData = (chunk) => {
    const at = performance.now();
    partial += chunk.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop();
    for (const text of parts) lines.push({ at, text });
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  async function waitForLine(pattern, from = 0, timeoutMs = 60_000) {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = lines.slice(from).find((line) => pattern.test(line.text));
      if (found) return found;
      if (performance.now() > deadline || child.exitCode !== null)
        throw new Error(`kop dev printed no line matching ${pattern}:\n${lines.map((l) => l.text).join('\n')}`);
      await sleep(10);
    }
  }
  return { child, lines, exited, waitForLine };
}

/** GET of one path on the dev control plane with its admin kubeconfig (client certificate). */
function apiGet(kubeconfig, apiPath) {
  const cluster = kubeconfig.clusters[0].cluster;
  const user = kubeconfig.users[0].user;
  const url = new URL(apiPath, cluster.server);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        ca: Buffer.from(cluster['certificate-authority-data'], 'base64'),
        cert: Buffer.from(user['client-certificate-data'], 'base64'),
        key: Buffer.from(user['client-key-data'], 'base64'),
      },
      (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function readyMessage(kubeconfig) {
  const response = await apiGet(
    kubeconfig,
    '/apis/cache.example.com/v1alpha1/namespaces/default/redisclusters/rediscluster-sample',
  );
  if (response.status !== 200) return undefined;
  return JSON.parse(response.body).status?.conditions?.find((condition) => condition.type === 'Ready')?.message;
}

const { parent, project } = makeProject();
let dev;
try {
  const started = performance.now();
  dev = startDev(project);
  const startLine = await dev.waitForLine(/watching api\/ and src\//, 0, 120_000);
  console.log(
    `kop dev --samples: watching after ${fmt(startLine.at - started)} (${startLine.text.replace(/^\[kop dev [\d:]+\] /, '')})`,
  );
  const kubeconfig = parse(readFileSync(path.join(project, '.kop/dev/kubeconfig'), 'utf8'));
  for (let deadline = performance.now() + 30_000; (await readyMessage(kubeconfig)) === undefined;) {
    if (performance.now() > deadline) throw new Error('the sample never got a Ready condition');
    await sleep(50);
  }

  const controller = readFileSync(path.join(project, CONTROLLER), 'utf8');
  const template = 'RedisCluster is reconciled at generation';
  if (!controller.includes(template)) throw new Error(`${CONTROLLER} no longer writes "${template}": update the bench`);
  const toStatus = [];
  const toReconciled = [];
  for (let i = 1; i <= EDITS; i++) {
    const marker = `Edit ${i} reconciled generation`;
    const from = dev.lines.length;
    const edited = performance.now();
    writeFileSync(path.join(project, CONTROLLER), controller.replace(template, marker));
    let reconciledAt;
    while (reconciledAt === undefined) {
      if ((await readyMessage(kubeconfig))?.startsWith(marker)) reconciledAt = performance.now();
      else if (performance.now() - edited > 30_000)
        throw new Error(`edit ${i} never reconciled:\n${dev.lines.map((l) => l.text).join('\n')}`);
      else await sleep(10);
    }
    const line = await dev.waitForLine(/manager restarted, ready in/, from);
    toStatus.push(line.at - edited);
    toReconciled.push(reconciledAt - edited);
    await sleep(300);
  }

  const types = readFileSync(path.join(project, TYPES), 'utf8');
  const toCrd = [];
  for (let i = 1; i <= API_EDITS; i++) {
    const from = dev.lines.length;
    const edited = performance.now();
    const fields = Array.from(
      { length: i },
      (_, n) => `  /**\n   * bench${n} is a field the bench adds.\n   * +optional\n   */\n  bench${n}?: string;\n`,
    ).join('');
    writeFileSync(path.join(project, TYPES), types.replace('  foo?: string;\n}', `  foo?: string;\n${fields}}`));
    const line = await dev.waitForLine(
      /types\.ts changed · .*CRD redisclusters\.cache\.example\.com reinstalled in .*manager restarted, ready in/,
      from,
    );
    toCrd.push(line.at - edited);
    const crd = JSON.parse(
      (
        await apiGet(
          kubeconfig,
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/redisclusters.cache.example.com',
        )
      ).body,
    );
    if (!crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties[`bench${i - 1}`])
      throw new Error(`the CRD has no field bench${i - 1} after edit ${i}`);
    await sleep(300);
  }

  const stopStarted = performance.now();
  dev.child.kill('SIGINT');
  const exit = await dev.exited;
  const stopMs = performance.now() - stopStarted;

  console.log(
    `reconciler edit -> manager restarted and ready (status line): ${summary(toStatus)} over ${EDITS} edits; aim < 2 s`,
  );
  console.log(
    `reconciler edit -> the new code's condition message on the sample: ${summary(toReconciled)} over ${EDITS} edits; aim < 2 s`,
  );
  console.log(
    `API type edit -> CRD reinstalled, manager restarted and ready: ${summary(toCrd)} over ${API_EDITS} edits; aim < 4 s`,
  );
  console.log(
    `SIGINT -> kop dev exited (${exit.code ?? exit.signal}) with manager and control plane stopped: ${fmt(stopMs)}`,
  );
  const cycleLines = dev.lines.filter((line) => / changed · /.test(line.text)).map((line) => `  ${line.text}`);
  if (process.env.VERBOSE) console.log(cycleLines.join('\n'));
} finally {
  if (dev && dev.child.exitCode === null && dev.child.signalCode === null) {
    dev.child.kill('SIGINT');
    await dev.exited;
  }
  rmSync(parent, { recursive: true, force: true });
}
