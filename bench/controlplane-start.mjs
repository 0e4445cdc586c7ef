// kop/testing control-plane start-to-ready time (etcd + kube-apiserver started, /readyz 200,
// `default` namespace present), warm: one discarded warm-up, then RUNS timed starts, each
// stopped before the next. Prints every run and the median (aim: under 5 s).
// Needs `npm run build` and the binaries (`node bin/kop.js setup-envtest`).
import { startControlPlane } from '../dist/testing/index.js';

const runs = Number(process.env.RUNS ?? 5);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function timedStart() {
  const started = process.hrtime.bigint();
  const plane = await startControlPlane();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const stopStarted = process.hrtime.bigint();
  await plane.stop();
  return { ms, stopMs: Number(process.hrtime.bigint() - stopStarted) / 1e6 };
}

await timedStart();
const starts = [];
const stops = [];
for (let i = 0; i < runs; i++) {
  const { ms, stopMs } = await timedStart();
  starts.push(ms);
  stops.push(stopMs);
  console.log(`run ${i + 1}: start-to-ready ${(ms / 1000).toFixed(2)} s, stop ${(stopMs / 1000).toFixed(2)} s`);
}
console.log(
  `control-plane start-to-ready: median ${(median(starts) / 1000).toFixed(2)} s over ${runs} warm runs (aim: < 5 s)`,
);
console.log(`control-plane stop: median ${(median(stops) / 1000).toFixed(2)} s`);
