#!/usr/bin/env node
// The `bridge` command runs the bundled JavaScript (scripts/bundle.mjs), never TypeScript on the
// fly: dist/bundle/ in an installed package; in a clone dist/clone/<build>/, made by `npm ci`
// (prepare) and made again here, in well under a second, when a source in its graph changed
// since (their mtimes against the build's, ~200 stats). A clone without esbuild falls back to tsx.
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import module from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

// Node 22.1+ keeps compiled code between runs (a no-op where the runtime has no such cache).
module.enableCompileCache?.()

const root = new URL('..', import.meta.url)

/** The clone's current build when no input changed since it was made. */
function freshClone() {
  const dir = new URL('dist/clone/', root)
  let cur
  try {
    cur = JSON.parse(readFileSync(new URL('current.json', dir), 'utf8'))
  } catch {
    return null
  }
  const entry = new URL(`${cur.build}/main.js`, dir)
  if (!existsSync(entry)) return null
  const base = fileURLToPath(root)
  for (const f of cur.inputs) {
    try {
      if (statSync(base + f).mtimeMs > cur.built) return null
    } catch {
      return null
    }
  }
  return entry
}

/** Marks the build a daemon runs from, so a later build does not remove it (scripts/bundle.mjs). */
function pin(dir) {
  const mark = new URL(`.serve-${process.pid}`, dir)
  try {
    writeFileSync(mark, '')
    process.on('exit', () => rmSync(mark, { force: true }))
  } catch {
    // A read-only checkout: nothing removes its builds either.
  }
}

async function cloneEntry() {
  const fresh = freshClone()
  if (fresh) return fresh
  let bundle
  try {
    ;({ bundle } = await import(new URL('scripts/bundle.mjs', root).href))
    await import('esbuild')
  } catch {
    return null
  }
  try {
    return pathToFileURL(await bundle('clone'))
  } catch (err) {
    // esbuild has printed where the sources do not build.
    console.error(`bridge: the sources do not build (${String(err?.message ?? err).split('\n')[0]})`)
    process.exit(1)
  }
}

if (existsSync(new URL('cli/main.ts', root))) {
  const entry = await cloneEntry()
  if (entry && process.argv[2] === 'serve') pin(new URL('.', entry))
  if (entry) await import(entry.href)
  else {
    const tsx = await import('tsx/esm/api').catch(() => null)
    if (!tsx) {
      console.error('bridge: neither esbuild nor tsx is installed here: run `npm ci`')
      process.exit(1)
    }
    tsx.register()
    await import(new URL('cli/main.ts', root).href)
  }
} else if (existsSync(new URL('dist/bundle/main.js', root))) {
  await import(new URL('dist/bundle/main.js', root).href)
} else {
  console.error('bridge: this package has no build in dist/bundle (run `npm run build`)')
  process.exit(1)
}
