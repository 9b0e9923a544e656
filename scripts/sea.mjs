#!/usr/bin/env node
// `npm run build:sea`: the bridge as one executable for linux-x64 (Node's single-executable
// applications): the bundle as one CommonJS file with every dependency inside
// (scripts/bundle.mjs, layout `sea`), the web client as embedded assets, injected into a copy of
// this node binary with postject. Output: dist/sea/bridge. The npm package stays the primary
// install; this is for machines without Node.
import { spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundle, SEA_FILE } from './bundle.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const out = join(root, 'dist/sea')
const started = Date.now()

const die = (msg) => {
  console.error(`herdr-bridge sea: ${msg}`)
  process.exit(1)
}
if (process.platform !== 'linux' || process.arch !== 'x64') die(`builds for linux-x64 only; this is ${process.platform}-${process.arch}`)
const [major, minor] = process.versions.node.split('.').map(Number)
// Embedded assets (sea.getAsset) came in Node 20.12.
if (major < 20 || (major === 20 && minor < 12)) die(`needs Node 20.12 or newer for embedded assets; this is ${process.version}`)

const web = join(root, 'plugins/web/dist')
if (!existsSync(join(web, 'index.html'))) {
  const r = spawnSync(process.execPath, ['plugins/web/build.mjs'], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0 || !existsSync(join(web, 'index.html'))) die('the web client did not build (npm ci first)')
}

await bundle('sea')

// The web client, file by file, plus a manifest naming them and the build they belong to.
const files = []
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) walk(p)
    else files.push(relative(web, p))
  }
}
walk(web)
files.sort()
const hash = createHash('sha256')
for (const f of files)
  hash
    .update(f)
    .update(String(statSync(join(web, f)).size))
    .update(String(statSync(join(web, f)).mtimeMs))
const manifest = join(out, 'web.json')
writeFileSync(manifest, JSON.stringify({ id: hash.digest('hex').slice(0, 16), files }))
const assets = { 'web.json': manifest, ...Object.fromEntries(files.map((f) => [`web/${f}`, join(web, f)])) }

const blob = join(out, 'bridge.blob')
const config = join(out, 'sea-config.json')
writeFileSync(config, JSON.stringify({ main: SEA_FILE, output: blob, disableExperimentalSEAWarning: true, assets }, null, 2))
const gen = spawnSync(process.execPath, ['--experimental-sea-config', config], { cwd: root, stdio: 'inherit' })
if (gen.status !== 0) die('node --experimental-sea-config failed')

const exe = join(out, 'bridge')
rmSync(exe, { force: true })
copyFileSync(process.execPath, exe)
chmodSync(exe, 0o755)
const postject = join(root, 'node_modules/postject/dist/cli.js')
if (!existsSync(postject)) die('postject is not installed (npm ci)')
const inj = spawnSync(process.execPath, [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
})
if (inj.status !== 0) die('postject failed')
rmSync(blob, { force: true })
console.log(`herdr-bridge: ${relative(root, exe)} (${(statSync(exe).size / 2 ** 20).toFixed(1)} MiB) in ${((Date.now() - started) / 1000).toFixed(1)} s`)
