// The plumbing shared by the benches that run the scaffolded RedisCluster operator as a process on
// a real control plane (operator-vs-controller-runtime.mjs, tracing-operator.mjs): their start-up
// and clean-up, scaffolding the operator, swapping in kop/runtime as built from another commit,
// starting and stopping operators by pid, a keep-alive HTTPS client with no client-side limit that
// creates and cleans up the objects, a watch that tells when they are Ready, and the backlog phase.
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The root of this kop checkout. */
export const root = fileURLToPath(new URL('../..', import.meta.url));
export const GROUP = 'cache.example.com';
export const VERSION = 'v1alpha1';
export const PLURAL = 'redisclusters';
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

export const now = () => Number(process.hrtime.bigint()) / 1e6;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const log = (line) => process.stdout.write(`${line}\n`);
export const tail = (file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-15).join('\n') : '');

export function run(command, args, cwd, options = {}) {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
  } catch (error) {
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`, {
      cause: error,
    });
  }
}

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** utime + stime of a process, in seconds (Linux /proc). */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** When and where a run happens: the date, Node, the CPUs and the load average (1, 5, 15 min). */
export function machineLine() {
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  return `${new Date().toISOString()}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ${load}`;
}

// ---- processes a bench starts: stopped by pid on every way out -------------------------------
const children = new Set();

/** Counts `child` among the processes stopped on every way out. */
export function trackChild(child) {
  children.add(child);
}
export function untrackChild(child) {
  children.delete(child);
}

export function killChildrenSync() {
  for (const child of children) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * Stops the children on exit, and on SIGINT/SIGTERM/SIGHUP: SIGTERM first (an operator stops as
 * it would in a pod, a child bench stops its own control plane), SIGKILL after 10 s, then
 * `cleanup` (stop the control plane, close servers) and exit 130. `onExit` runs on every exit
 * (remove the temp folder). `on`, not `once`: while a listener is registered kop/testing's own
 * handler leaves the exit to it.
 */
export function stopChildrenOnExit({ cleanup = async () => {}, onExit = () => {} } = {}) {
  process.on('exit', () => {
    killChildrenSync();
    onExit();
  });
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, async () => {
      if (stopping) return;
      stopping = true;
      log(`\n${signal}: stopping the operators and the control plane`);
      for (const child of children) child.kill('SIGTERM');
      await Promise.race([Promise.all([...children].map(exitOf)), sleep(10_000)]);
      killChildrenSync();
      await cleanup().catch(() => {});
      process.exit(130);
    });
  }
}

const exitOf = (child) =>
  new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve),
  );

// ---- a bench's start-up and clean-up ----------------------------------------------------------
/**
 * What every operator bench sets up first: a temp folder (`kop-bench-<name>-…`), and the
 * children, `onStop` (a bench's own servers) and the control plane stopped on every way out. The
 * bench starts its control plane and sets `bench.plane` (the control plane comes from the
 * bench's own import of kop/testing, which test/repository/bench-imports.test.ts checks), then
 * `bench.connect(...)` gives it its client; `bench.close()` in its `finally` undoes everything.
 */
export function operatorBench({ name, keep = false, onStop = () => {} }) {
  const bench = {
    workDir: mkdtempSync(join(tmpdir(), `kop-bench-${name}-`)),
    /** The control plane the bench started. */
    plane: undefined,
    /** The bench's client of that control plane, once `connect` made it. */
    client: undefined,
    connect(options) {
      bench.client = new BenchClient(bench.plane, options);
      return bench.client;
    },
    async close() {
      killChildrenSync();
      bench.client?.destroy();
      onStop();
      await bench.plane?.stop();
      removeWorkDir(bench.workDir, keep);
    },
  };
  stopChildrenOnExit({
    cleanup: async () => {
      onStop();
      await bench.plane?.stop();
    },
    onExit: () => !keep && removeWorkDir(bench.workDir, false),
  });
  return bench;
}

// ---- the scaffolded operator --------------------------------------------------------------------
/**
 * The RedisCluster operator as a new user makes it, in `dir`: kop init (whose npm install takes kop
 * from this checkout), create api, generate, npm run build. Returns how its `npm start` runs it:
 * `node [flags] <main>` (main relative to `dir`), so a bench can run that node itself and measure
 * its pid.
 */
export function scaffoldKopOperator(dir) {
  const kop = join(root, 'bin/kop.js');
  mkdirSync(dir);
  run(process.execPath, [kop, 'init', '--domain', 'example.com', '--yes'], dir);
  run(
    process.execPath,
    [kop, 'create', 'api', '--group', GROUP.split('.')[0], '--version', VERSION, '--kind', 'RedisCluster', '--yes'],
    dir,
  );
  run(process.execPath, [kop, 'generate', '--yes'], dir);
  run('npm', ['run', 'build'], dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const start = /^node((?: --[\w-]+(?:=\S+)?)*) (\S+)$/.exec(pkg.scripts.start);
  if (!start)
    throw new Error(
      `the generated start script is ${JSON.stringify(pkg.scripts.start)}; teach the bench how to start it`,
    );
  const crdDir = join(dir, 'config/crd/bases');
  return {
    startScript: pkg.scripts.start,
    nodeFlags: start[1].trim().split(' ').filter(Boolean),
    main: start[2],
    crd: join(
      crdDir,
      readdirSync(crdDir).find((f) => f.endsWith('.yaml')),
    ),
  };
}

// ---- kop/runtime from another commit ------------------------------------------------------------
/** A git revision of this checkout as a commit: its full hash and `<short hash> <subject>`. */
export function commitOf(rev) {
  const commit = run('git', ['rev-parse', '--verify', `${rev}^{commit}`], root).trim();
  return { commit, subject: run('git', ['log', '-1', '--format=%h %s', commit], root).trim() };
}

/** kop's dist/ as built from `commit`: its sources `git archive`d into `dir`, compiled with this checkout's tsc. */
export function buildDistAt(commit, dir) {
  mkdirSync(dir);
  const archive = join(dir, 'src.tar');
  run(
    'git',
    ['archive', '--format=tar', '-o', archive, commit, 'src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'],
    root,
  );
  run('tar', ['-xf', archive], dir);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], dir);
  return join(dir, 'dist');
}

/**
 * A copy of the scaffolded project in `copyDir` (left as it is when `dist` is not given) whose
 * installed kop has `dist` as its dist/: the project's own node_modules, so the operator runs
 * exactly the runtime given, with the same main.js and dependencies as the original.
 */
export function copyProject(projectDir, copyDir, dist) {
  cpSync(projectDir, copyDir, { recursive: true, verbatimSymlinks: true });
  const installedKop = join(copyDir, 'node_modules/kop');
  if (lstatSync(installedKop).isSymbolicLink())
    throw new Error(`${installedKop} is a link; the bench needs kop installed as a copy (its packed tarball)`);
  if (dist) {
    rmSync(join(installedKop, 'dist'), { recursive: true, force: true });
    cpSync(dist, join(installedKop, 'dist'), { recursive: true });
  }
  return copyDir;
}

/**
 * A copy of the scaffolded project in `copyDir` that runs kop/runtime as built from git revision
 * `rev` (built in `buildDir`). Returns the copy and the commit.
 */
export function projectWithRuntimeAt(rev, projectDir, copyDir, buildDir) {
  const { commit, subject } = commitOf(rev);
  log(`building kop/runtime at ${subject.slice(0, 100)} (git archive + tsc) ...`);
  return { dir: copyProject(projectDir, copyDir, buildDistAt(commit, buildDir)), commit, subject };
}

/**
 * Starts an operator (`{ name, command, cwd, env?, logFile }`) with free ports for metrics and
 * probes; resolves once its /readyz answers 200.
 */
export async function startOperator(operator, kubeconfig) {
  const metrics = await freePort();
  const health = await freePort();
  const flags = [
    '--kubeconfig',
    kubeconfig,
    '--metrics-bind-address',
    `127.0.0.1:${metrics}`,
    '--health-probe-bind-address',
    `127.0.0.1:${health}`,
  ];
  const out = openSync(operator.logFile, 'a');
  const [command, ...args] = [...operator.command, ...flags];
  const spawnedAt = now();
  const child = spawn(command, args, { cwd: operator.cwd, env: operator.env, stdio: ['ignore', out, out] });
  closeSync(out);
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.exited = exited;
  let gone;
  exited.then((status) => (gone = status));
  for (;;) {
    if (gone)
      throw new Error(
        `${operator.name} exited before it was ready (${JSON.stringify(gone)}); its log: ${operator.logFile}\n${tail(operator.logFile)}`,
      );
    const ok = await fetch(`http://127.0.0.1:${health}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await sleep(20);
  }
  return { child, pid: child.pid, spawnedAt };
}

/** SIGTERM, and SIGKILL if it has not exited 15 s later. */
export async function stopOperator(running) {
  running.child.kill('SIGTERM');
  const stopped = await Promise.race([running.child.exited, sleep(15_000).then(() => undefined)]);
  if (!stopped) {
    running.child.kill('SIGKILL');
    await running.child.exited;
  }
  children.delete(running.child);
}

/**
 * The backlog phase: `objects` RedisClusters created in `ns` while no operator runs, then the
 * operator started → all Ready on the bench's watch. Returns the seconds from the operator's spawn
 * and its CPU over its whole life until then; stops the operator and cleans the namespace up.
 */
export async function backlogToReady(client, operator, kubeconfig, ns, { objects, settleMs }) {
  const watch = await client.watchReady(ns);
  await client.createObjects(ns, objects);
  await sleep(settleMs);
  const running = await startOperator(operator, kubeconfig);
  let result;
  try {
    const readyAt = await watch.allReady(objects);
    result = { seconds: (readyAt - running.spawnedAt) / 1000, cpu: cpuSeconds(running.pid) };
    watch.close();
  } finally {
    await stopOperator(running);
  }
  await client.cleanup(ns);
  return result;
}

/** Removes `dir` unless `keep`, saying where it is otherwise. */
export function removeWorkDir(dir, keep) {
  if (!dir) return;
  if (keep) log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

// ---- a plain HTTPS client: keep-alive, no client-side limit -----------------------------------
export const collection = (ns) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`;
export const isReady = (o) =>
  (o.status?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === o.metadata.generation,
  );

async function pool(count, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/**
 * The bench's own client of the control plane's apiserver (as its admin): `concurrency` requests
 * in flight when creating or cleaning up, and watches that wait at most `phaseTimeoutMs`.
 */
export class BenchClient {
  constructor(plane, { concurrency, phaseTimeoutMs }) {
    this.server = plane.server;
    this.concurrency = concurrency;
    this.phaseTimeoutMs = phaseTimeoutMs;
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: concurrency + 4,
      ca: plane.caData,
      cert: plane.admin.certData,
      key: plane.admin.keyData,
    });
  }

  destroy() {
    this.agent.destroy();
  }

  api(method, path, body, contentType = 'application/json') {
    return new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = httpsRequest(
        new URL(path, this.server),
        {
          method,
          agent: this.agent,
          headers: {
            accept: 'application/json',
            ...(data ? { 'content-type': contentType, 'content-length': Buffer.byteLength(data) } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => {
            if (res.statusCode >= 300) reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
            else resolve(text ? JSON.parse(text) : undefined);
          });
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  }

  createNamespace(name) {
    return this.api('POST', '/api/v1/namespaces', { metadata: { name } });
  }

  /** One RedisCluster named `name` in `ns`; resolves with what the apiserver answered. */
  createObject(ns, name, foo = 'a') {
    return this.api('POST', collection(ns), {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'RedisCluster',
      metadata: { name },
      spec: { foo },
    });
  }

  /** `count` RedisClusters rc-00000… in `ns`, `concurrency` creates in flight. */
  createObjects(ns, count) {
    return pool(count, this.concurrency, (i) => this.createObject(ns, `rc-${String(i).padStart(5, '0')}`));
  }

  /** With no operator running: drop the finalizers, delete the objects, wait until none is left. */
  async cleanup(ns) {
    const { items } = await this.api('GET', collection(ns));
    await pool(items.length, this.concurrency, (i) =>
      this.api(
        'PATCH',
        `${collection(ns)}/${items[i].metadata.name}`,
        { metadata: { finalizers: null } },
        'application/merge-patch+json',
      ),
    );
    await this.api('DELETE', collection(ns));
    while ((await this.api('GET', collection(ns))).items.length > 0) await sleep(100);
  }

  /**
   * A watch on the namespace's RedisClusters from this process: which objects are Ready at their
   * generation. Its waits resolve with the time their condition first held.
   */
  async watchReady(ns) {
    const ready = new Set();
    const latest = new Map();
    const waiters = [];
    let closed = false;
    let current;
    const list = await this.api('GET', collection(ns));
    for (const o of list.items) {
      latest.set(o.metadata.name, o);
      if (isReady(o)) ready.add(o.metadata.name);
    }
    let resourceVersion = list.metadata.resourceVersion;
    const notify = () => {
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (waiters[i].done()) {
          waiters[i].resolve(now());
          waiters.splice(i, 1);
        }
      }
    };
    const connect = () => {
      const url = new URL(
        `${collection(ns)}?watch=1&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`,
        this.server,
      );
      current = httpsRequest(url, { agent: this.agent, headers: { accept: 'application/json' } }, (res) => {
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          buffer += chunk;
          let newline;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (!line.trim()) continue;
            const event = JSON.parse(line);
            if (event.type === 'ERROR') continue; // a 410 would need a relist: phases are far shorter than the watch cache's window
            resourceVersion = event.object.metadata.resourceVersion;
            if (event.type === 'BOOKMARK') continue;
            const o = event.object;
            latest.set(o.metadata.name, o);
            if (event.type !== 'DELETED' && isReady(o)) ready.add(o.metadata.name);
            else ready.delete(o.metadata.name);
          }
          notify();
        });
        res.on('end', () => {
          if (!closed) connect();
        });
      });
      current.on('error', () => {
        if (!closed) setTimeout(connect, 100);
      });
      current.end();
    };
    connect();
    const until = (done) =>
      new Promise((resolve, reject) => {
        if (done()) return resolve(now());
        const timer = setTimeout(
          () => reject(new Error(`${ns}: not there after ${this.phaseTimeoutMs} ms (${ready.size} Ready)`)),
          this.phaseTimeoutMs,
        );
        waiters.push({ done, resolve: (t) => (clearTimeout(timer), resolve(t)) });
      });
    return {
      allReady: (count) => until(() => ready.size >= count),
      /** Ready at `generation` or later. */
      readyAt: (name, generation = 0) =>
        until(() => ready.has(name) && latest.get(name)?.metadata.generation >= generation),
      close() {
        closed = true;
        current.destroy();
      },
    };
  }
}
