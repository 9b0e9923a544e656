#!/usr/bin/env node
// Builds the web client (plugins/web/app → plugins/web/dist) with Vite. Run by `npm run
// build:web` and by npm's `prepare` after `npm ci`. Without Vite (a production-only install)
// it says so and exits 0: the bridge then serves a page asking for this build.
import { fileURLToPath } from 'node:url'

let vite
try {
  vite = await import('vite')
} catch {
  console.warn('herdr-bridge: Vite is not installed, so the web client was not built (npm install, then npm run build:web).')
  process.exit(0)
}
const started = Date.now()
await vite.build({ configFile: fileURLToPath(new URL('./app/vite.config.ts', import.meta.url)) })
// The push service worker is a classic script at a fixed URL (browsers load it by name, and it
// calls importScripts), so it is a second, single-file build next to the app's.
await vite.build({
  configFile: false,
  logLevel: 'warn',
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: false,
    target: 'es2022',
    minify: true,
    lib: {
      entry: fileURLToPath(new URL('./app/src/sw/firebase-messaging-sw.ts', import.meta.url)),
      formats: ['iife'],
      name: 'herdrPushWorker',
      fileName: () => 'firebase-messaging-sw.js',
    },
  },
})
console.log(`herdr-bridge: web client built into plugins/web/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`)
