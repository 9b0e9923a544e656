import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createConsola } from 'consola'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { defineBridgePlugin } from '../../core/plugin.ts'
import { checkDataDir } from '../../storage/trust.ts'
import { LEGACY_PLUGIN_KEYS, migrateLegacyLayout } from '../../storage/plugin-storage.ts'
import userConfig from '../../bridge.config.ts'

/**
 * Each plugin stores under its own prefix (`<data dir>/plugins/<name>/`), and a data dir in the
 * old flat layout (every plugin's file at the top) moves there once, at start, before any plugin
 * reads: everything a device set is still there afterwards, also when an earlier start was
 * interrupted halfway through the moves.
 */

let home: string
let dataDir: string
const NOW = Date.now()
const TIMELINE = [{ ts: NOW - 60_000, pane: 'default/w1-p1', agent: 'claude', session: 'default', workspace: 'default/w1', to: 'working' }]

/** What a device set, read back through the routes. */
interface Seen {
  key: string
  mutes: unknown
  quiet: unknown
  seen: unknown
  channels: unknown
  timeline: unknown
}
let before: Seen
let bearer: string

async function read(b: TestBridge): Promise<Seen> {
  const get = async (path: string) => (await b.request(path, { token: bearer })).json()
  return {
    key: (await get('/webpush/key')).public_key,
    mutes: await get('/notify/mutes'),
    quiet: await get('/notify/quiet'),
    seen: await get('/seen'),
    channels: await get('/notify/channels'),
    timeline: (await get('/timeline')).entries,
  }
}

function withLog(): { lines: string[]; log: ReturnType<typeof createConsola> } {
  const lines: string[] = []
  return { lines, log: createConsola({ level: 3, reporters: [{ log: (o) => void lines.push(`${o.type} ${o.args.join(' ')}`) }] }).withTag('bridge') }
}

const layoutLines = (lines: string[]) => lines.filter((l) => l.includes('data dir:'))
/** Every plugin file at the top again, as an earlier version kept it (the plugins folder gone). */
function toOldLayout(keys = Object.keys(LEGACY_PLUGIN_KEYS)) {
  for (const key of keys) {
    const at = join(dataDir, 'plugins', LEGACY_PLUGIN_KEYS[key], key)
    if (existsSync(at)) renameSync(at, join(dataDir, key))
  }
}
const topFiles = () => readdirSync(dataDir).filter((n) => n in LEGACY_PLUGIN_KEYS)

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'bridge-layout-'))
  dataDir = join(home, '.herdr-bridge')
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  // A bridge that ran before: a device with a Web Push key served, a mute, quiet hours, a seen
  // mark, a channel turned off, and a timeline.
  writeFileSync(join(dataDir, 'timeline.json'), JSON.stringify(TIMELINE), { mode: 0o600 })
  const b = await startBridge({ home, dataDir })
  const d = await b.pair('phone')
  bearer = d.bearer
  const post = (path: string, json: unknown) => b.request(path, { method: 'POST', token: bearer, json })
  expect((await post('/notify/mute', { pane: 'w1:p1' })).status).toBe(200)
  expect((await post('/notify/quiet', { from: '22:00', to: '07:00', utc_offset: 60 })).status).toBe(200)
  expect((await post('/seen', { pane: 'w1:p1', seq: 4 })).status).toBe(200)
  expect((await post('/notify/channels', { channel: 'webpush', on: false })).status).toBe(200)
  before = await read(b)
  await b.close()
  expect(before.timeline).toHaveLength(1)
})
afterAll(() => rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }))

describe('each plugin’s own storage', () => {
  it('keeps each plugin’s files in its own folder of the data dir, trusted like the rest', () => {
    expect(topFiles()).toEqual([])
    const files = (name: string) => readdirSync(join(dataDir, 'plugins', name)).sort()
    expect(files('notify-webpush')).toEqual(['webpush-vapid.json'])
    // (notify-alerted.json comes with the first alert; no agent ran here.)
    expect(files('push')).toEqual(['notify-channels-off.json', 'notify-mutes.json', 'notify-quiet.json'])
    expect(files('seen')).toEqual(['seen.json'])
    expect(files('timeline')).toEqual(['timeline.json'])
    expect(statSync(join(dataDir, 'plugins')).mode & 0o777).toBe(0o700)
    expect(() => checkDataDir(dataDir)).not.toThrow()
  })

  it('a plugin reads and lists only its own keys', async () => {
    let seen: { keys: string[]; devices: unknown; mine: unknown; climb: string } | undefined
    const nosy = defineBridgePlugin({
      name: 'nosy',
      async setup(ctx) {
        await ctx.storage.setItemRaw('own.json', '{"a":1}')
        let climb = ''
        try {
          await ctx.storage.getItemRaw('..:push:notify-mutes.json')
        } catch (err) {
          climb = (err as Error).message
        }
        seen = { keys: await ctx.storage.getKeys(), devices: await ctx.storage.getItemRaw('devices.json'), mine: await ctx.storage.getItem('own.json'), climb }
        return {}
      },
    })
    const b = await startBridge({ home, dataDir, user: { plugins: [...userConfig.plugins, nosy] } })
    await b.close()
    expect(seen).toEqual({ keys: ['own.json'], devices: null, mine: { a: 1 }, climb: '[unstorage] Invalid key: "plugins:nosy:..:push:notify-mutes.json"' })
    expect(readFileSync(join(dataDir, 'plugins', 'nosy', 'own.json'), 'utf8')).toBe('{"a":1}')
    rmSync(join(dataDir, 'plugins', 'nosy'), { recursive: true })
  })

  it('moves a data dir of the old layout once, keeping everything a device set; the next start moves nothing', async () => {
    toOldLayout()
    // The folders the old layout did not have (push's keeps the channel choice, which is new).
    for (const name of readdirSync(join(dataDir, 'plugins'))) if (!readdirSync(join(dataDir, 'plugins', name)).length) rmSync(join(dataDir, 'plugins', name), { recursive: true })
    expect(readdirSync(join(dataDir, 'plugins'))).toEqual(['push'])
    expect(topFiles().sort()).toEqual(['notify-mutes.json', 'notify-quiet.json', 'seen.json', 'timeline.json', 'webpush-vapid.json'])
    const first = withLog()
    const b = await startBridge({ home, dataDir, log: first.log })
    const after = await read(b)
    await b.close()
    expect(after).toEqual(before)
    expect(topFiles()).toEqual([])
    expect(layoutLines(first.lines)).toEqual([
      "info data dir: moved to each plugin's own storage: webpush-vapid.json → plugins/notify-webpush/webpush-vapid.json, notify-mutes.json → plugins/push/notify-mutes.json, notify-quiet.json → plugins/push/notify-quiet.json, timeline.json → plugins/timeline/timeline.json, seen.json → plugins/seen/seen.json",
    ])
    const second = withLog()
    const again = await startBridge({ home, dataDir, log: second.log })
    expect(await read(again)).toEqual(before)
    await again.close()
    expect(layoutLines(second.lines)).toEqual([])
  })

  it('finishes a move interrupted halfway, losing nothing', async () => {
    // A start killed after some renames: half the files at the top, the rest (and an empty
    // folder made just before its rename) in place.
    toOldLayout(['webpush-vapid.json', 'notify-mutes.json', 'seen.json', 'timeline.json'])
    expect(readdirSync(join(dataDir, 'plugins', 'seen'))).toEqual([])
    const { lines, log } = withLog()
    const b = await startBridge({ home, dataDir, log })
    expect(await read(b)).toEqual(before)
    await b.close()
    expect(topFiles()).toEqual([])
    expect(layoutLines(lines)).toHaveLength(1)
    expect(layoutLines(lines)[0]).toMatch(/^info data dir: moved to each plugin's own storage: webpush-vapid\.json → .*, seen\.json → plugins\/seen\/seen\.json$/)
  })

  it('never overwrites a file already in its new place: the old copy stays, and the start says so', () => {
    writeFileSync(join(dataDir, 'seen.json'), '{"stale": true}', { mode: 0o600 })
    const kept = readFileSync(join(dataDir, 'plugins', 'seen', 'seen.json'), 'utf8')
    expect(migrateLegacyLayout(dataDir)).toEqual({ moved: [], kept: ['seen.json'] })
    expect(readFileSync(join(dataDir, 'plugins', 'seen', 'seen.json'), 'utf8')).toBe(kept)
    expect(readFileSync(join(dataDir, 'seen.json'), 'utf8')).toBe('{"stale": true}')
    rmSync(join(dataDir, 'seen.json'))
    expect(migrateLegacyLayout(dataDir)).toEqual({ moved: [], kept: [] })
  })
})
