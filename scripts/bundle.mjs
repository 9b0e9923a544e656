// The daemon and CLI as one bundled module graph (esbuild): a few files to read and no module
// resolution at start-up, where the compiled dist/ tree is ~190 files plus each dependency's own.
// Dependencies that are big and needed late stay outside the bundle and load on first use:
// firebase-admin (FCM configured), web-push (first Web Push send), unzipper (first docx/pptx),
// jiti (a user config file), undici (CLI admin calls, notifier dispatchers).
//
// Code splitting keeps the CLI lazy: `bridge --version` reads the entry chunk only, `serve` adds
// the daemon's, and an external dependency is imported by the chunk that needs it (in one file
// esbuild would hoist every external import to the top and load them all at start).
//
// Three layouts, the same graph:
//   package  dist/bundle/main.js         `npm pack` (prepack); the web client at dist/plugins/web/dist
//   clone    dist/clone/<build>/main.js  `npm ci` (prepare), and cli/bin.mjs when a source changed;
//                                        dist/clone/current.json names the build and its inputs;
//                                        the web client stays at plugins/web/dist
//   sea      dist/sea/bridge.cjs         the single executable (scripts/sea.mjs): one CommonJS
//                                        file, every dependency inside, the web client read from
//                                        the executable
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Loaded on first use only; the package installs them as dependencies. */
export const LATE = ['firebase-admin', 'web-push', 'unzipper', 'jiti', 'undici']

export const PACKAGE_DIR = join(root, 'dist/bundle')
export const CLONE_DIR = join(root, 'dist/clone')
export const SEA_FILE = join(root, 'dist/sea/bridge.cjs')
/** A build younger than this stays: a CLI may have just read its name. */
const KEEP_MS = 60_000

/** Whether a daemon still running was started from this build. */
function inUse(dir) {
  for (const f of readdirSync(dir)) {
    const pid = /^\.serve-(\d+)$/.exec(f)?.[1]
    if (!pid) continue
    try {
      process.kill(Number(pid), 0)
      return true
    } catch (err) {
      if (err.code === 'EPERM') return true
    }
  }
  return false
}

/** Modules a worker thread loads by URL (plugins/transcript/count-worker.ts loads the counters). */
const WORKER_ENTRIES = [
  ['count-claude', 'plugins/kind-claude/transcript/count.ts'],
  ['count-codex', 'plugins/kind-codex/transcript/count.ts'],
]
const beside = (layout, name) => (layout === 'sea' ? 'undefined' : `new URL('./${name}.js', import.meta.url).href`)

/**
 * Source text swapped at build time, each checked to match exactly once so a moved line fails
 * the build instead of shipping a wrong path: where the web client is, relative to the bundle,
 * and which command the CLI tells a user to run (`npx bridge` from a clone).
 */
const swaps = (layout) => [
  {
    file: 'plugins/web/index.ts',
    from: "fileURLToPath(new URL('./dist/', import.meta.url))",
    to: {
      package: "fileURLToPath(new URL('../plugins/web/dist/', import.meta.url))",
      clone: "fileURLToPath(new URL('../../../plugins/web/dist/', import.meta.url))",
      sea: 'globalThis.__bridgeWebDist',
    }[layout],
  },
  // The transcript counting worker and each kind's counter are entries of their own, beside the
  // chunks; the single executable has no file a worker could load, so it counts on the main thread.
  { file: 'plugins/transcript/count-in-worker.ts', from: "moduleBeside(import.meta.url, './count-worker.ts')", to: beside(layout, 'count-worker') },
  ...WORKER_ENTRIES.map(([name, file]) => ({ file: file.replace(/count\.ts$/, 'reader.ts'), from: "moduleBeside(import.meta.url, './count.ts')", to: beside(layout, name) })),
  { file: 'cli/errors.ts', from: "import.meta.url.endsWith('.ts')", to: layout === 'clone' ? 'true' : 'false' },
  // CommonJS has no top-level await; the CLI's last line is its only one.
  ...(layout === 'sea' ? [{ file: 'cli/main.ts', from: 'await runCli(', to: 'void runCli(' }] : []),
  // firebase-admin goes inside the executable: a plain require esbuild can follow.
  ...(layout === 'sea' ? [{ file: 'plugins/notify-fcm/credentials.ts', from: "requireFirebase('firebase-admin/app')", to: "require('firebase-admin/app')" }] : []),
]

function swapPlugin(layout) {
  const list = swaps(layout)
  return {
    name: 'layout-swaps',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        const rel = relative(root, args.path)
        const mine = list.filter((s) => s.file === rel)
        if (!mine.length) return undefined
        let text = await readFile(args.path, 'utf8')
        for (const s of mine) {
          const n = text.split(s.from).length - 1
          if (n !== 1) throw new Error(`${rel}: expected "${s.from}" once, found it ${n} times; update scripts/bundle.mjs`)
          text = text.replace(s.from, s.to)
        }
        return { contents: text, loader: 'ts' }
      })
    },
  }
}

const common = (layout) => ({
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  // Function names stay (stack traces, logs); whitespace is all that goes.
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  plugins: [swapPlugin(layout)],
})

/** ESM chunks need a `require` for the CommonJS packages bundled into them. */
const REQUIRE_BANNER = "import { createRequire as __bridgeRequire } from 'node:module'; const require = __bridgeRequire(import.meta.url);"

async function esm(layout, outdir) {
  const esbuild = await import('esbuild')
  return esbuild.build({
    ...common(layout),
    entryPoints: { main: 'cli/main.ts', 'count-worker': 'plugins/transcript/count-worker.ts', ...Object.fromEntries(WORKER_ENTRIES) },
    outdir,
    format: 'esm',
    splitting: true,
    chunkNames: '[name]-[hash]',
    banner: { js: REQUIRE_BANNER },
    external: LATE,
  })
}

/**
 * Builds one layout; returns the entry file. A clone build goes to a new folder and is named in
 * current.json by a rename, so a CLI starting meanwhile runs the old build or the new one, never
 * half of one; builds older than the previous one are removed.
 */
export async function bundle(layout) {
  if (layout === 'package') {
    rmSync(PACKAGE_DIR, { recursive: true, force: true })
    await esm(layout, PACKAGE_DIR)
    return join(PACKAGE_DIR, 'main.js')
  }
  if (layout === 'clone') {
    const id = `${Date.now().toString(36)}-${process.pid}`
    const dir = join(CLONE_DIR, id)
    const result = await esm(layout, dir)
    const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith('node_modules/') && !p.includes(':'))
    const built = statSync(join(dir, 'main.js')).mtimeMs
    const tmp = join(CLONE_DIR, `current.json.${id}`)
    writeFileSync(tmp, JSON.stringify({ build: id, built, inputs }))
    renameSync(tmp, join(CLONE_DIR, 'current.json'))
    // The newest three stay, and any a running daemon was started from (it loads some chunks
    // late: the first FCM send, a user config); it marks its build with `.serve-<pid>`.
    const builds = readdirSync(CLONE_DIR, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== id)
      .map((d) => ({ name: d.name, at: statSync(join(CLONE_DIR, d.name)).mtimeMs }))
      .sort((a, b) => b.at - a.at)
    for (const old of builds.slice(3)) {
      if (Date.now() - old.at < KEEP_MS || inUse(join(CLONE_DIR, old.name))) continue
      rmSync(join(CLONE_DIR, old.name), { recursive: true, force: true })
    }
    return join(dir, 'main.js')
  }
  if (layout === 'sea') {
    const esbuild = await import('esbuild')
    mkdirSync(join(root, 'dist/sea'), { recursive: true })
    await esbuild.build({
      ...common(layout),
      entryPoints: ['scripts/sea-entry.ts'],
      outfile: SEA_FILE,
      format: 'cjs',
      // Optional requires of dependencies the bridge never reaches (unzipper's S3 source).
      external: ['@aws-sdk/client-s3'],
      // CommonJS has no import.meta: the executable's own path stands in for it.
      define: { 'import.meta.url': '__bridgeUrl', 'import.meta.dirname': '__dirname' },
      banner: { js: "const __bridgeUrl = require('node:url').pathToFileURL(process.execPath).href;" },
    })
    return SEA_FILE
  }
  throw new Error(`bundle: unknown layout "${layout}": want package, clone or sea`)
}

// `node scripts/bundle.mjs <layout>`
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const layout = process.argv[2] ?? 'package'
  const started = Date.now()
  try {
    const out = await bundle(layout)
    console.log(`herdr-bridge: bundled ${relative(root, out)} in ${Date.now() - started} ms`)
  } catch (err) {
    console.error(`herdr-bridge bundle: ${err.message}`)
    process.exit(1)
  }
}
