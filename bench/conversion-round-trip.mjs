// The generated round-trip test of a conversion (kop/testing's checkConversionRoundTrip) on a kind
// the size of the Kubebuilder CronJob tutorial's: its spec (schedule, deadlines, concurrency
// policy, suspend, history limits and a whole batch/v1 JobTemplateSpec, pod spec included) and
// status, in two versions. Times CASES objects (half each direction, a quarter of them pruned),
// median of ROUNDS, after one warm-up round. Aim: 1,000 cases in under 2 s.
// Needs `npm run build`.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadApiModel } from '../dist/schema/model.js';
import { buildCrds } from '../dist/schema/crd.js';
import { checkConversionRoundTrip } from '../dist/testing/index.js';

const CASES = Number(process.env.CASES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const GROUP = 'batch.tutorial.kubebuilder.io';

const types = `import type { JobTemplateSpec, ObjectMeta, ObjectReference, Time, int32, int64 } from 'kop/api';

/** CronJobSpec defines the desired state of CronJob. */
export interface CronJobSpec {
  /**
   * The schedule in Cron format.
   * +kubebuilder:validation:MinLength=0
   */
  schedule: string;
  /**
   * Deadline in seconds for starting the job if it misses scheduled time.
   * +kubebuilder:validation:Minimum=0
   * +optional
   */
  startingDeadlineSeconds?: int64;
  /** +optional */
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  /** +optional */
  suspend?: boolean;
  /** The job that will be created when executing a CronJob. */
  jobTemplate: JobTemplateSpec;
  /**
   * +kubebuilder:validation:Minimum=0
   * +optional
   */
  successfulJobsHistoryLimit?: int32;
  /**
   * +kubebuilder:validation:Minimum=0
   * +optional
   */
  failedJobsHistoryLimit?: int32;
}

/** CronJobStatus defines the observed state of CronJob. */
export interface CronJobStatus {
  /** +optional */
  active?: ObjectReference[];
  /** +optional */
  lastScheduleTime?: Time;
}

/**
 * CronJob is the Schema for the cronjobs API.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 */
export interface CronJob {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: CronJobSpec;
  status?: CronJobStatus;
}
`;

const root = await mkdtemp(path.join(os.tmpdir(), 'kop-bench-round-trip-'));
try {
  for (const version of ['v1', 'v2']) {
    const dir = path.join(root, 'api', 'batch', version);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'groupversion.ts'), `// +groupName=${GROUP}\n\nexport const GROUP = '${GROUP}';\n`);
    await writeFile(
      path.join(dir, 'cronjob.types.ts'),
      version === 'v1'
        ? types.replace(
            '+kubebuilder:object:root=true',
            '+kubebuilder:object:root=true\n * +kubebuilder:storageversion',
          )
        : types,
    );
  }
  const [{ crd }] = buildCrds(await loadApiModel(root));
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
} finally {
  await rm(root, { recursive: true, force: true });
}
