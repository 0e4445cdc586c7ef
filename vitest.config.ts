import { configDefaults, defineConfig } from 'vitest/config';
import { unitTempDir } from './test/helpers/unit-temp-dir.js';
import { E2E_TESTS, LIVE_TESTS } from './test/helpers/vitest-projects.js';

/** Where the unit tests' temporary folders go: memory where the machine has it (see there). */
const UNIT_TMPDIR = unitTempDir();

/** Not test files of kop: fixtures and the golden projects' own tests. */
const NOT_KOP_TESTS = [...configDefaults.exclude, '**/fixtures/**', '**/golden/**'];

/**
 * Three projects (`npx vitest run --project unit|live|e2e`, `npm run test:unit|test:live|test:e2e`):
 *   unit  everything else: no control plane, no npm, no built CLI, no network. test/helpers/unit-guard.ts
 *         makes that checkable: in this project, starting kube-apiserver or etcd, running npm, npx, go
 *         or the built CLI, or connecting off this machine fails the test, naming the project it belongs in.
 *   live  a real control plane (LIVE_TESTS)
 *   e2e   the CLI and scaffolded projects, installed and run (E2E_TESTS)
 * `npm test` runs all three. Files stay where they are; a project is the lists of test/helpers/vitest-projects.ts, and
 * test/repository/vitest-projects.test.ts checks every entry names a file and no file is in two projects.
 */
export default defineConfig({
  test: {
    // Control-plane and end-to-end tests start real processes; give them room.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: run files in parallel, but not so many that apiservers starve each other.
    maxWorkers: 2,
    minWorkers: 1,
    // The unit project's threads share one module graph per worker (see there). Vitest 3 reads a pool's
    // options here, from the root, and no other project runs in threads, so live and e2e keep a fresh
    // process per file and two workers. Unit runs alone, before them, in three threads on two cores:
    // several of its files wait on child processes and timers, and a third thread fills that time
    // (on the 2-core VM, 2026-11-28, quiet: 70-72 s wall with two, 59-62 s with three, 64 s with four).
    // As many threads from the start as at most: with fewer, tinypool ends an idle thread while the
    // shared module graph still has work pending in it, and the run fails ("Terminating worker thread").
    poolOptions: { threads: { isolate: false, minThreads: 3, maxThreads: 3 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...NOT_KOP_TESTS, ...LIVE_TESTS, ...E2E_TESTS],
          setupFiles: ['./test/helpers/unit-guard.ts'],
          // One module graph per worker, not per file: the files share kop's modules, Prettier and ts-morph,
          // loaded and warmed up once instead of again for each file. So a unit test must not leave module
          // state, globals or timers changed, nor chdir (a worker thread cannot). `isolate: false` alone
          // does not do it: vitest 3 takes a forks pool's isolation from the root config only, so the
          // unit project used to start a new process for each file; its own pool, threads, lets the root
          // set that for unit alone. Its CPU time went from 6 min 49 s to 3 min 53 s (2026-11-28, loaded).
          pool: 'threads',
          isolate: false,
          // Temporary folders in memory (test/helpers/unit-temp-dir.ts): on this project's 2-core VM, the
          // same three scaffold-heavy files took 87 s and 31 s of CPU with /tmp on ext4, 53 s and 22 s so.
          env: UNIT_TMPDIR === undefined ? {} : { TMPDIR: UNIT_TMPDIR },
        },
      },
      {
        extends: true,
        test: {
          name: 'live',
          // After unit: vitest runs each pool at once, and unit's threads beside these forks would be four
          // workers on two cores.
          sequence: { groupOrder: 1 },
          include: LIVE_TESTS,
          exclude: [...NOT_KOP_TESTS, ...E2E_TESTS],
          // Control planes shared by the files that need no plane of their own (test/helpers/shared-control-plane.ts).
          globalSetup: ['./test/helpers/shared-control-plane-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          sequence: { groupOrder: 1 },
          include: E2E_TESTS,
          exclude: NOT_KOP_TESTS,
          // One TypeScript compiler for the run's type checks of generated projects (test/helpers/typecheck.ts).
          globalSetup: ['./test/helpers/e2e-global-setup.ts'],
        },
      },
    ],
  },
});
