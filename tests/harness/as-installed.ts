/** Helpers for the tests that build, pack or install the bridge as a user gets it. */
import { cpSync, symlinkSync } from 'node:fs'
import { join, relative } from 'node:path'
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
