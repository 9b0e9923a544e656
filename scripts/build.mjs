#!/usr/bin/env node
// `npm run build` (and npm's `prepack`): the web client, then the TypeScript sources compiled to
// dist/ with relative `.ts` imports rewritten to `.js` (the library a user config or a plugin
// package imports, with its types), then the web client copied beside the compiled web plugin,
// then the CLI and daemon bundled into dist/bundle/ (scripts/bundle.mjs), which `bridge` runs.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const root = fileURLToPath(new URL('..', import.meta.url))
const started = Date.now()
const step = (what, args) => {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) {
    console.error(`herdr-bridge build: ${what} failed`)
    process.exit(r.status ?? 1)
  }
}

rmSync(`${root}/dist`, { recursive: true, force: true })
step('web client', ['plugins/web/build.mjs'])
if (!existsSync(`${root}/plugins/web/dist/index.html`)) {
  console.error('herdr-bridge build: plugins/web/dist was not built (is Vite installed? run npm ci)')
  process.exit(1)
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
step('tsc', [tsc, '-p', 'tsconfig.build.json'])
cpSync(`${root}/plugins/web/dist`, `${root}/dist/plugins/web/dist`, { recursive: true })
const { bundle } = await import('./bundle.mjs')
await bundle('package')
console.log(`herdr-bridge: compiled into dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`)
