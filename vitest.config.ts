import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    setupFiles: ['tests/setup/fail-on-uncaught.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own simulator and bridge; two cores cannot take more.
    maxWorkers: 2,
    pool: 'forks',
  },
})
