// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
import { defineConfig } from 'vitest/config';

// `npm run test:e2e` (it builds first): the built manager as a process against a real control
// plane. Apart from vitest.config.ts so that `npm test` stays fast and needs no build.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
