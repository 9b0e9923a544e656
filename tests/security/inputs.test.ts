import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT, startBridge, type TestBridge } from '../harness/bridge.ts'
import { createFailureLimiter } from '../../plugins/pairing/codes.ts'
import { logSafe } from '../../lib/strings.ts'

/**
 * Small holes: a pairing limiter that forgot everyone past 10,000 addresses and had no cap on
 * failures from many addresses; NUL in a branch name (a 500) and control characters forging log
 * lines; temp files of interrupted writes, holding bearers, left in the data dir for ever.
 */

describe('pairing failure limiter', () => {
  test('10,001 fresh addresses do not wipe the record of the worst offender', () => {
    let t = 1_000_000
    const lim = createFailureLimiter(() => t, 10, 60_000, { globalMax: Number.MAX_SAFE_INTEGER })
    for (let i = 0; i < 10; i++) lim.fail('attacker')
    expect(lim.retryAfter('attacker')).toBe(60)
    for (let i = 0; i < 10_001; i++) lim.fail(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`)
    expect(lim.retryAfter('attacker')).toBe(60)
    expect(lim.tracked()).toBeLessThanOrEqual(10_000)
    t += 60_001
    expect(lim.retryAfter('attacker')).toBe(0)
  })

  test('failures from all addresses together are capped at 100 a minute', () => {
    let t = 5_000_000
    const lim = createFailureLimiter(() => t)
    for (let i = 0; i < 100; i++) {
      expect(lim.retryAfter(`addr-${i}`)).toBe(0)
      lim.fail(`addr-${i}`)
      t += 100
    }
    // A new address, never seen: held back by the global cap until the oldest failure ages out.
    expect(lim.retryAfter('newcomer')).toBe(50)
    expect(lim.check('newcomer')).toEqual({ wait: 50, global: true })
    t += 50_001
    expect(lim.retryAfter('newcomer')).toBe(0)
  })
})

describe('control characters', () => {
  let b: TestBridge
  beforeAll(async () => {
    b = await startBridge()
  })
  afterAll(() => b?.close())

  test('NUL or a newline in a branch name or repo_root is a 400 naming the field', async () => {
    const cases: Array<[object, string]> = [
      [{ repo_root: b.home, branch: 'topic\u0000--force' }, 'branch: control characters are not allowed'],
      [{ repo_root: b.home, branch: 'topic\nfatal: forged' }, 'branch: control characters are not allowed'],
      [{ repo_root: `${b.home}\u0000`, branch: 'topic' }, 'repo_root: control characters are not allowed'],
    ]
    for (const [json, error] of cases) {
      const r = await b.request('/branch-delete', { method: 'POST', json })
      expect([r.status, await r.json()]).toEqual([400, { error }])
    }
  })

  test('a device name with control characters is refused before pairing', async () => {
    const { code } = (await (await b.request('/admin/pairing', { method: 'POST' })).json()) as { code: string }
    const r = await b.request('/pair', { method: 'POST', token: null, json: { code, device_name: 'phone\n[error] bridge compromised' } })
    expect([r.status, await r.text()]).toEqual([400, 'device_name: control characters are not allowed'])
  })

  test('control characters in any query parameter are a 400 naming it, HTTP and WebSocket routes alike', async () => {
    const r = await b.request('/diff?pane=w1%00p1')
    expect([r.status, await r.text()]).toEqual([400, 'pane: control characters are not allowed'])
    const ws = await b.request('/attach?pane=w1%0Ap1')
    expect([ws.status, await ws.text()]).toEqual([400, 'pane: control characters are not allowed'])
  })

  test('client strings in log lines are escaped', () => {
    expect(logSafe('phone\n[error] forged\u001b[31m')).toBe('phone\\n[error] forged\\u001b[31m')
    expect(logSafe('x'.repeat(300)).length).toBe(200)
  })
})

describe('stale temp files in the data dir', () => {
  test('temp files of interrupted atomic writes older than a minute are removed at start-up', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bridge-sweep-'))
    const data = join(home, '.herdr-bridge')
    mkdirSync(join(data, 'timeline'), { recursive: true })
    const old = Date.now() / 1000 - 600
    const stale = [join(data, '.devices.json.0a1b2c3d.tmp'), join(data, 'timeline', '.ring.json.deadbeef.tmp')]
    for (const p of stale) {
      writeFileSync(p, '[{"bearer":"secret"}]')
      utimesSync(p, old, old)
    }
    const fresh = join(data, '.config.json.12345678.tmp')
    writeFileSync(fresh, '{}')
    const notOurs = join(data, 'notes.tmp')
    writeFileSync(notOurs, 'x')
    utimesSync(notOurs, old, old)
    const b = await startBridge({ home, dataDir: data })
    try {
      expect(stale.map(existsSync)).toEqual([false, false])
      expect(existsSync(fresh)).toBe(true)
      expect(existsSync(notOurs)).toBe(true)
    } finally {
      await b.close()
      rmSync(home, { recursive: true, force: true })
    }
  })

  test('a transcript index write killed before its rename leaves a temp file the next start removes', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bridge-sweep-'))
    const data = join(home, '.herdr-bridge')
    const indexDir = join(data, 'transcript-index')
    // One index saved whole, then a second one whose process dies in the fsync of its temp file.
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `
        import { open } from 'node:fs/promises'
        import { saveIndex } from ${JSON.stringify(join(REPO_ROOT, 'lib/transcript/index-store.ts'))}
        const image = { indexed: 6, count: 2, n: 2, offs: new Float64Array([0, 3]), lens: new Uint32Array([2, 2]), cum: new Uint32Array([2, 4]) }
        const id = { dev: 1, ino: 2, head: 'h', headLen: 0 }
        await saveIndex(process.argv[1], 'kept', id, image)
        const fh = await open('/dev/null')
        Object.getPrototypeOf(fh).sync = () => process.kill(process.pid, 'SIGKILL')
        await fh.close()
        await saveIndex(process.argv[1], 'cut', id, image)
        `,
        indexDir,
      ],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    )
    expect([child.signal, child.stderr]).toEqual(['SIGKILL', ''])
    const before = readdirSync(indexDir)
    const temps = before.filter((n) => n.endsWith('.tmp'))
    expect([before.length, temps.length]).toEqual([2, 1])
    const old = Date.now() / 1000 - 600
    utimesSync(join(indexDir, temps[0]), old, old)
    const b = await startBridge({ home, dataDir: data })
    try {
      expect(readdirSync(indexDir)).toEqual(before.filter((n) => !n.endsWith('.tmp')))
    } finally {
      await b.close()
      rmSync(home, { recursive: true, force: true })
    }
  })
})
