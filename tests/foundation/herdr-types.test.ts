// lib/herdr/api.ts is generated from the herdr schema the repository carries: the committed file
// is exactly what scripts/herdr-types.mjs makes of it, so a schema update without regenerating
// (or a hand edit) fails here.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { REPO_ROOT } from '../harness/bridge.ts'

const script = join(REPO_ROOT, 'scripts/herdr-types.mjs')
const check = (file?: string) => execa(process.execPath, [script, '--check', ...(file ? [file] : [])], { reject: false })

describe("herdr's generated types", () => {
  it('the committed file is what the schema gives', async () => {
    const r = await check()
    expect([r.exitCode, String(r.stderr)]).toEqual([0, ''])
  })

  it('a file that drifted from the schema fails the check, naming the way back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herdr-types-'))
    try {
      const drifted = join(dir, 'api.ts')
      writeFileSync(drifted, readFileSync(join(REPO_ROOT, 'lib/herdr/api.ts'), 'utf8').replace('pane_id: string', 'pane_id: number'))
      const r = await check(drifted)
      expect([r.exitCode, String(r.stderr).trim()]).toEqual([
        1,
        `${drifted} is not what tests/harness/herdr-sim/schema/herdr-api.schema.json gives: run node scripts/herdr-types.mjs`,
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
