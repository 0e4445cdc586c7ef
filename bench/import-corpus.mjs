// Wall time of `kop import crd` followed by the `kop generate` it runs, through the built CLI, on
// the corpus of published CRDs listed in test/import/corpus/SOURCES.md: the whole corpus (the
// owned CRDs with --own in one run, the external ones in another, as the round-trip test imports
// them), and the largest CRD alone. Prints the median of RUNS runs (default 5). Aims: the corpus
// under 3 s, the largest CRD under 1 s. Needs `npm run build`; fetches the corpus files (hack/import-corpus.mjs) if missing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchImportCorpus } from '../hack/import-corpus.mjs';

const kop = fileURLToPath(new URL('../bin/kop.js', import.meta.url));
const runs = Number(process.env.RUNS ?? 5);

// Missing corpus files come from the Go module proxy, their hashes checked.
const rows = (await fetchImportCorpus()).map((entry) => ({
  file: entry.path,
  use: `${entry.own ? 'own' : 'external'}${entry.rawSchema ? ' --raw-schema' : ''}`,
}));

/** CPU seconds this process's finished children used (Linux /proc; undefined elsewhere). */
function childCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // cutime and cstime, in clock ticks (100 a second on Linux).
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

/** Wall and CPU seconds for the imports in `batches` (each: files and flags) in a fresh project. */
function importSeconds(batches) {
  const dir = mkdtempSync(path.join(tmpdir(), 'kop-bench-import-'));
  try {
    writeFileSync(
      path.join(dir, 'PROJECT'),
      'version: "1"\nlayout:\n  - kop.dev/typescript/v1\ndomain: example.com\nprojectName: bench\n',
    );
    const started = process.hrtime.bigint();
    const cpuBefore = childCpuSeconds();
    for (const { files, flags } of batches) {
      const result = spawnSync(process.execPath, [kop, 'import', 'crd', ...flags, ...files], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
      if (result.status !== 0) throw new Error(`kop import crd failed:\n${result.stderr}`);
    }
    const cpuAfter = childCpuSeconds();
    return {
      wall: Number(process.hrtime.bigint() - started) / 1e9,
      cpu: cpuBefore === undefined ? undefined : cpuAfter - cpuBefore,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const owned = rows.filter((row) => row.use.startsWith('own'));
const external = rows.filter((row) => !row.use.startsWith('own'));
const corpusBatches = [
  { files: owned.map((row) => row.file), flags: ['--own', '--raw-schema'] },
  { files: external.map((row) => row.file), flags: ['--raw-schema'] },
];
const largest = owned.reduce((a, b) => (statSync(a.file).size >= statSync(b.file).size ? a : b));
const largestBatch = [
  { files: [largest.file], flags: ['--own', ...(largest.use.includes('--raw-schema') ? ['--raw-schema'] : [])] },
];

const mb = (files) => (files.reduce((sum, file) => sum + statSync(file).size, 0) / 1e6).toFixed(1);
const shown = (samples) => {
  const cpu = samples.every((s) => s.cpu !== undefined)
    ? `, CPU ${median(samples.map((s) => s.cpu)).toFixed(2)} s`
    : '';
  return `${median(samples.map((s) => s.wall)).toFixed(2)} s${cpu}`;
};
const corpusRuns = Array.from({ length: runs }, () => importSeconds(corpusBatches));
const largestRuns = Array.from({ length: runs }, () => importSeconds(largestBatch));
console.log(
  `kop import crd + kop generate, median of ${runs} runs (load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs):`,
);
console.log(
  `  corpus: ${rows.length} files (${owned.length} owned, ${external.length} external; ${mb(rows.map((r) => r.file))} MB): ${shown(corpusRuns)} (aim < 3 s)`,
);
console.log(`  largest: ${path.basename(largest.file)} (${mb([largest.file])} MB): ${shown(largestRuns)} (aim < 1 s)`);
