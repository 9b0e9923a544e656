import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // Out-of-tree kinds (examples/) import the package by name, as they would once installed.
  resolve: {
    alias: [
      { find: /^herdr-bridge$/, replacement: fileURLToPath(new URL('./index.ts', import.meta.url)) },
      { find: /^herdr-bridge\/kit$/, replacement: fileURLToPath(new URL('./lib/kit.ts', import.meta.url)) },
    ],
  },
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
