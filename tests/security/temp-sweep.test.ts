import { afterEach, describe, expect, it, vi } from 'vitest'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT, startBridge, type TestBridge } from '../harness/bridge.ts'
import { TEMP_FILE, tempPathFor } from '../../lib/atomic-file.ts'
import { createConsola } from 'consola'

/**
 * Temp files of interrupted atomic writes (which may hold bearers) are swept once their writer
 * is gone: at start-up whatever their age, and while the bridge runs, within the sweep period,
 * when another process's write was killed midway. A live writer's temp file is left alone.
 */
const homes: string[] = []
let b: TestBridge | undefined
afterEach(async () => {
  await b?.close()
  b = undefined
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true })
})

function dataDir() {
  const home = mkdtempSync(join(tmpdir(), 'bridge-temps-'))
  homes.push(home)
  const data = join(home, '.herdr-bridge')
  mkdirSync(data, { recursive: true, mode: 0o700 })
  return { home, data }
}

/** A process that starts an atomic write of `file` and is killed before its rename: the temp file stays. */
function killedWriter(file: string): string {
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `
      import { io, writeFileAtomic } from ${JSON.stringify(join(REPO_ROOT, 'lib/atomic-file.ts'))}
      const write = io.write
      io.write = (path, data, mode) => { write(path, data, mode); process.kill(process.pid, 'SIGKILL') }
      writeFileAtomic(process.argv[1], '[{"bearer":"secret"}]')
      `,
      file,
    ],
    { cwd: REPO_ROOT, encoding: 'utf8' },
  )
  expect([child.signal, child.stderr]).toEqual(['SIGKILL', ''])
  return `${child.pid}`
}

const temps = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.tmp'))

describe('temp files of interrupted writes', () => {
  it('are named with their writer', () => {
    const name = tempPathFor('/x/devices.json').split('/').pop()!
    expect(name).toMatch(new RegExp(`^\\.devices\\.json\\.${process.pid}-[0-9a-f]{8}\\.tmp$`))
    expect(TEMP_FILE.exec(name)?.[1]).toBe(String(process.pid))
  })

  it('a write killed a moment ago is swept at start-up, young as it is', async () => {
    const { home, data } = dataDir()
    const pid = killedWriter(join(data, 'devices.json'))
    expect(temps(data)).toEqual([expect.stringContaining(`.devices.json.${pid}-`)])
    b = await startBridge({ home, dataDir: data })
    expect(temps(data)).toEqual([])
  })

  it('while the bridge runs, a killed writer’s temp file goes within the sweep period; a live writer’s stays', async () => {
    const { home, data } = dataDir()
    const lines: string[] = []
    const log = createConsola({ level: 3, reporters: [{ log: (o) => void lines.push(o.args.join(' ')) }] })
    b = await startBridge({ home, dataDir: data, env: { BRIDGE_TEMP_SWEEP_MS: '100' }, log })
    // A live writer: this process (not the bridge's own writes: those are named by the same pid
    // here, and a sweep after start-up leaves them), and pid 1.
    const live = [join(data, `.config.json.${process.pid}-0a1b2c3d.tmp`), join(data, '.config.json.1-0a1b2c3d.tmp')]
    for (const p of live) writeFileSync(p, '{}')
    const pid = killedWriter(join(data, 'webpush-vapid.json'))
    await vi.waitFor(() => expect(lines).toContain('removed 1 temp file(s) whose writer is gone from the data dir'), { timeout: 5000, interval: 50 })
    expect(temps(data).filter((n) => n.includes(`.${pid}-`))).toEqual([])
    expect(live.map(existsSync)).toEqual([true, true])
  })
})
