#!/usr/bin/env node
// The `bridge` command. In a clone (sources beside this file, tsx installed) it runs the
// TypeScript sources, so `npx bridge` needs no build; an installed package runs the compiled
// JavaScript in dist/ with plain node.
import { existsSync } from 'node:fs'

const sources = new URL('./main.ts', import.meta.url)
const compiled = new URL('../dist/cli/main.js', import.meta.url)
let tsx = null
if (existsSync(sources)) tsx = await import('tsx/esm/api').catch(() => null)
if (tsx) {
  tsx.register()
  await import(sources.href)
} else if (existsSync(compiled)) {
  await import(compiled.href)
} else {
  console.error('bridge: neither tsx (run `npm ci`) nor a compiled build (run `npm run build`) is present')
  process.exit(1)
}
