// The web app's API types (plugins/web/app/src/lib/api-types.ts) are generated from the API
// document the routes' valibot schemas give: the committed file is exactly what
// scripts/api-types.mjs makes of them, so a changed response schema without regenerating (or a
// hand edit) fails here.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { REPO_ROOT } from '../harness/bridge.ts'

const script = join(REPO_ROOT, 'scripts/api-types.mjs')
const committed = join(REPO_ROOT, 'plugins/web/app/src/lib/api-types.ts')
const check = (file?: string) => execa(process.execPath, [script, '--check', ...(file ? [file] : [])], { reject: false })

describe("the web app's generated API types", () => {
  it('the committed file is what the routes give', async () => {
    const r = await check()
    expect([r.exitCode, String(r.stderr)]).toEqual([0, ''])
  })

  it('a file that drifted from the routes fails the check, naming the way back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-types-'))
    try {
      const drifted = join(dir, 'api-types.ts')
      const text = readFileSync(committed, 'utf8')
      expect(text).toContain('  server_id: string\n')
      writeFileSync(drifted, text.replace('  server_id: string\n', '  server_id: number\n'))
      const r = await check(drifted)
      expect([r.exitCode, String(r.stderr).trim()]).toEqual([1, `${drifted} is not what the routes' schemas give: run node scripts/api-types.mjs`])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('types each JSON route by method: its answer, and for POST its body', () => {
    const text = readFileSync(committed, 'utf8')
    const routes = (name: string) =>
      [
        ...text
          .slice(text.indexOf(`export interface ${name} {`))
          .split('\n}\n')[0]
          .matchAll(/^ {2}'(\/[^']*)': /gm),
      ].map((m) => m[1])
    expect(routes('GetResponses')).toEqual(expect.arrayContaining(['/snapshot', '/info', '/diff', '/diff/expand', '/timeline', '/seen']))
    expect(routes('PostResponses')).toEqual(expect.arrayContaining(['/send', '/approve', '/herdr', '/seen', '/image', '/file']))
    expect(routes('PostBodies')).toEqual(routes('PostResponses'))
    // Static files and the app's own page answer no JSON, so they are not in the client's map.
    expect(routes('GetResponses')).not.toContain('/sw.js')
    expect(routes('GetResponses')).not.toContain('/{any}')
  })
})
