// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
import { configDefaults, defineConfig } from 'vitest/config';

// Three projects, so that only the tests that share the control plane wait for it (and need its
// binaries): `npx vitest run test/flags.test.ts` runs on a machine without them.
//   unit         everything under test/ but the two folders below
//   webhooks     test/webhooks: each file starts its own control plane (test/webhooks/environment.ts)
//   controllers  test/controllers: share the one control plane test/global-setup.ts starts
// A project's global setup runs only when some of its files are selected.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/controllers/**', 'test/webhooks/**'],
        },
      },
      { extends: true, test: { name: 'webhooks', include: ['test/webhooks/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'controllers',
          include: ['test/controllers/**/*.test.ts'],
          globalSetup: ['./test/global-setup.ts'],
        },
      },
    ],
  },
});
