// The generated round-trip test of a conversion (kop/testing's checkConversionRoundTrip) on a kind
// the size of the Kubebuilder CronJob tutorial's: its spec (schedule, deadlines, concurrency
// policy, suspend, history limits and a whole batch/v1 JobTemplateSpec, pod spec included) and
// status, in two versions. Times CASES objects (half each direction, a quarter of them pruned),
// median of ROUNDS, after one warm-up round. Aim: 1,000 cases in under 2 s.
// Needs `npm run build`.
import { readFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { checkConversionRoundTrip } from '../dist/testing/index.js';

const CASES = Number(process.env.CASES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const GROUP = 'batch.tutorial.kubebuilder.io';

// The CronJob tutorial's own CRD (testdata/tutorials/cronjob, made by kop generate), its v1 served
// a second time as v2: the same fields in both versions.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const crd = parse(
  await readFile(path.join(root, 'testdata/tutorials/cronjob/config/crd/bases', `${GROUP}_cronjobs.yaml`), 'utf8'),
);
const [v1] = crd.spec.versions;
crd.spec.versions = [v1, { ...structuredClone(v1), name: 'v2', storage: false }];

const schemaBytes = JSON.stringify(crd.spec.versions[0].schema).length;
const type = (version) => ({ group: GROUP, version, kind: 'CronJob', resource: 'cronjobs', namespaced: true });
// Versions with the same fields: the conversion copies, and the check does the whole work.
const conversion = {
  convertTo: (spoke) => ({ ...spoke, apiVersion: `${GROUP}/v1` }),
  convertFrom: (hub) => ({ ...hub, apiVersion: `${GROUP}/v2` }),
};
const once = async () => {
  const started = performance.now();
  await checkConversionRoundTrip({ crd, hub: type('v1'), spoke: type('v2'), conversion, runs: CASES / 2 });
  return performance.now() - started;
};
await once();
const times = [];
for (let i = 0; i < ROUNDS; i++) times.push(await once());
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const cpu = os.cpus();
console.log(
  `machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, Node ${process.version}, load ${os.loadavg()[0].toFixed(2)}, ${new Date().toISOString()}`,
);
console.log(`CronJob schema: ${(schemaBytes / 1024).toFixed(0)} KiB of JSON per version`);
console.log(
  `round trip, ${CASES} cases: median ${(median / 1000).toFixed(2)} s of ${ROUNDS} (min ${(times[0] / 1000).toFixed(2)} s, max ${(times.at(-1) / 1000).toFixed(2)} s); aim < 2 s`,
);
