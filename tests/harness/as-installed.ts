/** Helpers for the tests that build, pack or install the bridge, or an example plugin, as a user gets it. */
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { execa } from 'execa'
import { expect } from 'vitest'
import { REPO_ROOT } from './bridge.ts'

/**
 * A copy of the repo's sources at `dest`, without .git, node_modules or build output, with the
 * repo's node_modules linked in: a build or pack there cannot disturb tests reading the repo's dist.
 */
export function copySources(dest: string): void {
  const skip = new Set(['node_modules', '.git', 'dist', '.bench-tmp'])
  cpSync(REPO_ROOT, dest, {
    recursive: true,
    filter: (from) =>
      !relative(REPO_ROOT, from)
        .split('/')
        .some((p) => skip.has(p)),
  })
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dest, 'node_modules'))
}

/** The bridge at `url` answers /healthz and serves its web client: the page and the module script it names. */
export async function expectWebClient(url: string): Promise<void> {
  const h = await fetch(`${url}/healthz`)
  expect(h.status).toBe(200)
  expect(await h.json()).toEqual({ ok: true })
  const page = await fetch(`${url}/`)
  expect(page.status).toBe(200)
  const html = await page.text()
  const script = /<script type="module"[^>]* src="(\/assets\/[^"]+\.js)"/.exec(html)
  expect(script, html.slice(0, 400)).not.toBeNull()
  const asset = await fetch(`${url}${script![1]}`)
  expect(asset.status).toBe(200)
  expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
}

// npm run under `npm test` passes its own npm_* settings down; the inner npm gets none of them.
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')))

/** npm in `cwd` with none of the outer npm's settings; never rejects (the caller checks the exit code). */
export function npm(args: string[], cwd: string, timeout = 120_000) {
  return execa('npm', args, { cwd, env: npmEnv, extendEnv: false, reject: false, timeout })
}

/** `npm pack` of `dir` into `dest`: the tarball's path and the files it holds. */
export async function pack(dir: string, dest: string, timeout?: number): Promise<{ tarball: string; files: string[] }> {
  const packed = await npm(['pack', '--json', '--pack-destination', dest], dir, timeout)
  expect(packed.exitCode, String(packed.stderr)).toBe(0)
  const info = JSON.parse(String(packed.stdout).slice(String(packed.stdout).indexOf('[')))
  return { tarball: join(dest, info[0].filename), files: info[0].files.map((f: { path: string }) => f.path) }
}

/**
 * The example plugin in examples/<name> as a user gets it: packed from a copy (nothing is written
 * into the repo), installed from the tarball into a new project under `work` (whose package must
 * hold exactly `files`), the bridge and `peers` (packages of the repo's node_modules) linked in
 * after, as `npm link` would (--legacy-peer-deps keeps npm from fetching them), and the config its
 * README shows (its one ```ts block) written to bridge.config.ts. Returns the project's folder.
 */
export async function installExample(name: string, work: string, files: string[], peers: string[] = []): Promise<string> {
  const example = join(REPO_ROOT, 'examples', name)
  const src = join(work, 'src')
  cpSync(example, src, { recursive: true })
  const { tarball } = await pack(src, work)
  const project = join(work, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-bridge', private: true, type: 'module' }))
  const installed = await npm(['install', '--legacy-peer-deps', '--offline', '--no-audit', '--no-fund', tarball], project)
  expect(installed.exitCode, String(installed.stderr)).toBe(0)
  const pkg = JSON.parse(readFileSync(join(example, 'package.json'), 'utf8')).name as string
  expect(readdirSync(join(project, 'node_modules', pkg)).sort()).toEqual(files)
  symlinkSync(REPO_ROOT, join(project, 'node_modules', 'herdr-bridge'), 'dir')
  for (const peer of peers) symlinkSync(join(REPO_ROOT, 'node_modules', peer), join(project, 'node_modules', peer), 'dir')
  const m = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(example, 'README.md'), 'utf8'))
  if (!m) throw new Error(`examples/${name}/README.md shows no \`\`\`ts config`)
  writeFileSync(join(project, 'bridge.config.ts'), m[1])
  return project
}
