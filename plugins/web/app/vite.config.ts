import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

// Builds plugins/web/app → plugins/web/dist, served by the web plugin (fingerprinted assets
// under /assets/, public/ copied to the root: sw.js, manifest, icons).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 800,
  },
})
