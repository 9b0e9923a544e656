// The single executable's entry (scripts/sea.mjs): the web client comes out of the executable
// once per build into the user's cache folder (the web plugin serves files from a folder), then
// the CLI runs exactly as the package's does.
import { getAsset, isSea } from 'node:sea'
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

interface WebManifest {
  /** Changes with every build of the web client. */
  id: string
  files: string[]
}

function webDist(): string {
  const manifest = JSON.parse(getAsset('web.json', 'utf8')) as WebManifest
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache')
  const dir = join(cache, 'herdr-bridge', `web-${manifest.id}`)
  if (existsSync(join(dir, 'index.html'))) return dir + '/'
  // Written beside its final name and renamed: two executables starting at once never serve half.
  const tmp = `${dir}.${process.pid}.tmp`
  for (const f of manifest.files) {
    mkdirSync(dirname(join(tmp, f)), { recursive: true, mode: 0o700 })
    writeFileSync(join(tmp, f), new Uint8Array(getAsset(`web/${f}`)))
  }
  try {
    renameSync(tmp, dir)
  } catch {
    // Another start won the race; its copy is the same build.
    rmSync(tmp, { recursive: true, force: true })
  }
  return dir + '/'
}

// Only `serve` loads the web plugin; the other commands leave the cache alone.
if (isSea() && process.argv.includes('serve')) (globalThis as { __bridgeWebDist?: string }).__bridgeWebDist = webDist()
void import('../cli/main.ts')
