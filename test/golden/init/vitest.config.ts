// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
import { configDefaults, defineConfig } from 'vitest/config';

// Two projects, so that only the tests that need a control plane wait for it (and need its
// binaries): `npx vitest run test/flags.test.ts` runs on a machine without them.
//   unit     everything under test/ but the two folders below
//   cluster  test/controllers and test/webhooks: share the one control plane (and webhook server)
//            test/global-setup.ts starts for the whole run; each test file uses a namespace of its own.
//            They also share one module graph, as the tests of a Go package share one envtest suite:
//            kop/runtime and the project's code load once per worker thread, not once per file, which
//            about halves the run of a project with many kinds. So these files must not leave timers,
//            globals or mocks behind, nor call process.chdir (a worker thread cannot).
// A project's global setup runs only when some of its files are selected.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Read from here only (vitest 3 takes pool options from the root): only the cluster project uses threads.
    poolOptions: { threads: { isolate: false } },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/controllers/**', 'test/webhooks/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: ['test/controllers/**/*.test.ts', 'test/webhooks/**/*.test.ts'],
          pool: 'threads',
          globalSetup: ['./test/global-setup.ts'],
        },
      },
    ],
  },
});
