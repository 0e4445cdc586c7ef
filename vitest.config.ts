import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/fixtures/**', '**/golden/**'],
    // Control-plane and end-to-end tests start real processes; give them room.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: run files in parallel, but not so many that apiservers starve each other.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
