// Kubebuilder's whole project-v4 testdata script (test/kubebuilder-testdata/scripts.mjs) with the
// built kop: every command, then the make steps' kop equivalents (`kop generate`,
// `kop build-installer`); kop's own time only, no npm install, build or test. Prints the median of
// RUNS runs (default 3) and how many commands succeeded; the aim is under 20 s. Needs `npm run build`.
import { commandScore, runKubebuilderScript } from '../test/kubebuilder-testdata/run-script.mjs';

const runs = Number(process.env.RUNS ?? 3);
const times = [];
let last;
for (let i = 0; i < runs; i++) {
  last = await runKubebuilderScript('project-v4', { build: false, compare: false });
  times.push(last.kopMs);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const slowest = [...last.commands, ...last.steps.map((s) => ({ argv: [`[${s.name}]`], ms: s.ms }))]
  .sort((a, b) => b.ms - a.ms)
  .slice(0, 3)
  .map((c) => `${c.argv.slice(1, 3).join(' ') || c.argv[0]} ${(c.ms / 1000).toFixed(2)} s`);
console.log(
  `Kubebuilder's project-v4 script with kop (${commandScore(last)} commands succeed): median ${(median / 1000).toFixed(1)} s of kop time over ${runs} runs ` +
    `(min ${(times[0] / 1000).toFixed(1)}, max ${(times.at(-1) / 1000).toFixed(1)}); aim < 20 s; slowest: ${slowest.join(', ')}`,
);
if (last.commands.some((c) => !c.ok))
  console.log("note: failed commands fail fast, so the figure is not yet the full script's");
