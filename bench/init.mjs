// `kop init` timed two ways; needs `npm run build` first.
//
//   node bench/init.mjs              kop init --skip-install: templates rendered, tree planned
//                                    and flushed (RUNS, default 7; the median).
//   node bench/init.mjs --install    side by side, ROUNDS rounds (default 3) alternating: kop init
//                                    with its npm install, and `kubebuilder init` (which runs
//                                    `go mod tidy`), both with warm npm and Go caches (one untimed
//                                    round first); with --cold, one more round each with empty
//                                    caches (a temp npm cache, a temp GOMODCACHE). Kubebuilder is
//                                    $KUBEBUILDER or `kubebuilder` on PATH, e.g. built with
//                                    `GOBIN=$(mktemp -d) go install sigs.k8s.io/kubebuilder/v4@v4.16.0`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, existsSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const kop = fileURLToPath(new URL('../bin/kop.js', import.meta.url));
const parent = mkdtempSync(path.join(tmpdir(), 'kop-bench-init-'));
const install = process.argv.includes('--install');
const cold = process.argv.includes('--cold');

/** Runs `argv` in a new folder `name` and returns its wall time in ms. */
function timed(name, argv, env = {}) {
  const dir = path.join(parent, name);
  mkdirSync(dir);
  const started = process.hrtime.bigint();
  const result = spawnSync(argv[0], argv.slice(1), { cwd: dir, stdio: 'pipe', env: { ...process.env, ...env } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0)
    throw new Error(`${argv.join(' ')} exited with ${result.status}:\n${result.stderr.toString().slice(-2000)}`);
  return { ms, dir };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Packages npm installed: every folder with a package.json under node_modules, nested ones too. */
function countPackages(modules) {
  let count = 0;
  for (const entry of existsSync(modules) ? readdirSync(modules, { withFileTypes: true }) : []) {
    if (!entry.isDirectory() || entry.name === '.bin' || entry.name === '.cache') continue;
    const dirs = entry.name.startsWith('@')
      ? readdirSync(path.join(modules, entry.name)).map((n) => path.join(modules, entry.name, n))
      : [path.join(modules, entry.name)];
    for (const dir of dirs) {
      if (existsSync(path.join(dir, 'package.json'))) count++;
      count += countPackages(path.join(dir, 'node_modules'));
    }
  }
  return count;
}

function skipInstall() {
  const runs = Number(process.env.RUNS ?? 7);
  const once = (i) =>
    timed(`demo-${i}`, [process.execPath, kop, 'init', '--domain', 'example.com', '--skip-install', '--yes']).ms;
  once('warm');
  const times = Array.from({ length: runs }, (_, i) => once(i)).sort((a, b) => a - b);
  console.log(
    `kop init --skip-install: median ${median(times).toFixed(1)} ms over ${runs} runs (min ${times[0].toFixed(1)}, max ${times.at(-1).toFixed(1)})`,
  );
}

function sideBySide() {
  const kubebuilder = process.env.KUBEBUILDER ?? 'kubebuilder';
  if (spawnSync(kubebuilder, ['version'], { stdio: 'ignore' }).status !== 0)
    throw new Error(`no kubebuilder at ${kubebuilder}: set KUBEBUILDER (see the comment at the top)`);
  const kbVersion = /KubeBuilder:\s*(\S+)/.exec(spawnSync(kubebuilder, ['version']).stdout.toString())?.[1];
  const rounds = Number(process.env.ROUNDS ?? 3);
  const kopInit = (name, env) => {
    const { ms, dir } = timed(name, [process.execPath, kop, 'init', '--domain', 'example.com', '--yes'], env);
    return { ms, packages: countPackages(path.join(dir, 'node_modules')) };
  };
  const kbInit = (name, env) =>
    timed(name, [kubebuilder, 'init', '--domain', 'example.com', '--repo', `example.com/${name}`], env).ms;
  kopInit('kop-warm');
  kbInit('kb-warm');
  const kopTimes = [];
  const kbTimes = [];
  let packages = 0;
  for (let i = 0; i < rounds; i++) {
    const k = kopInit(`kop-${i}`);
    kopTimes.push(k.ms);
    packages = k.packages;
    kbTimes.push(kbInit(`kb-${i}`));
  }
  const spread = (xs) => `${seconds(Math.min(...xs))}–${seconds(Math.max(...xs))}`;
  console.log(
    `${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), node ${process.version}`,
  );
  console.log(
    `kop init (npm install, ${packages} packages): median ${seconds(median(kopTimes))} over ${rounds} rounds (${spread(kopTimes)}), warm npm cache`,
  );
  console.log(
    `kubebuilder ${kbVersion} init (go mod tidy):  median ${seconds(median(kbTimes))} over ${rounds} rounds (${spread(kbTimes)}), warm module cache`,
  );
  if (cold) {
    const npmCache = path.join(parent, 'npm-cache');
    const goCache = path.join(parent, 'gomodcache');
    const k = kopInit('kop-cold', { npm_config_cache: npmCache });
    const kb = kbInit('kb-cold', { GOMODCACHE: goCache, GOFLAGS: `${process.env.GOFLAGS ?? ''} -modcacherw`.trim() });
    console.log(`cold caches, one round: kop init ${seconds(k.ms)}, kubebuilder init ${seconds(kb)}`);
  }
}

try {
  if (install) sideBySide();
  else skipInstall();
} finally {
  rmSync(parent, { recursive: true, force: true });
}
