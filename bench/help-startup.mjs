// `kop --help` cold start against a bare `node -e 0`, run alternately so both see the
// same machine load. Prints the medians and their ratio (aim: within 1.5x).
// Needs `npm run build` first.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const kop = fileURLToPath(new URL('../bin/kop.js', import.meta.url));
const runs = Number(process.env.RUNS ?? 15);

function time(args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${result.status}`);
  return ms;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

time(['-e', '0']);
time([kop, '--help']);
const bare = [];
const help = [];
for (let i = 0; i < runs; i++) {
  bare.push(time(['-e', '0']));
  help.push(time([kop, '--help']));
}
const bareMs = median(bare);
const helpMs = median(help);
const min = (values) => Math.min(...values).toFixed(1);
// Medians are the figure; minimums show the floor when other work shares the machine.
console.log(`node -e 0:  median ${bareMs.toFixed(1)} ms (min ${min(bare)}) over ${runs} runs`);
console.log(`kop --help: median ${helpMs.toFixed(1)} ms (min ${min(help)}) over ${runs} runs`);
console.log(`ratio: ${(helpMs / bareMs).toFixed(2)}x (aim: <= 1.50x)`);
