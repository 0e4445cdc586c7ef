// Wall time of `kop init --skip-install` (templates rendered, tree planned and flushed)
// in fresh temp folders; prints the median. Needs `npm run build` first.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const kop = fileURLToPath(new URL('../bin/kop.js', import.meta.url));
const runs = Number(process.env.RUNS ?? 7);
const parent = mkdtempSync(path.join(tmpdir(), 'kop-bench-init-'));

function once(i) {
  const dir = path.join(parent, `demo-${i}`);
  mkdirSync(dir);
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [kop, 'init', '--domain', 'example.com', '--skip-install', '--yes'], {
    cwd: dir,
    stdio: 'ignore',
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`kop init exited with ${result.status}`);
  return ms;
}

try {
  once('warm');
  const times = Array.from({ length: runs }, (_, i) => once(i)).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(
    `kop init --skip-install: median ${median.toFixed(1)} ms over ${runs} runs (min ${times[0].toFixed(1)}, max ${times.at(-1).toFixed(1)})`,
  );
} finally {
  rmSync(parent, { recursive: true, force: true });
}
