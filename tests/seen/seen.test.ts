// "Seen" marks shared by a user's devices: raised, never lowered, announced on /events to every
// device, kept across a restart, and bad input refused with one line. Real bridge and simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { WebSocket } from 'undici'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { startSim } from '../harness/sim.ts'

let home: string
let sim: Awaited<ReturnType<typeof startSim>>
let bridge: TestBridge
let phone: { bearer: string }
let laptop: { bearer: string }

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'seen-'))
  // /events needs a herdr to send its snapshot frame.
  sim = await startSim({ home, testMode: true })
  bridge = await startBridge({ home })
  phone = await bridge.pair('phone')
  laptop = await bridge.pair('laptop')
})
afterAll(async () => {
  await bridge?.close()
  await sim?.stop()
  rmSync(home, { recursive: true, force: true })
})

const mark = (token: string, body: unknown) => bridge.request('/seen', { method: 'POST', token, json: body })

describe('seen marks', () => {
  it('raises a mark, never lowers it, and tells every device over /events', async () => {
    const ws = new WebSocket(`${bridge.wsUrl}/events?token=${laptop.bearer}`)
    const frames: unknown[] = []
    const gotSeen = new Promise<unknown>((resolve) => {
      ws.onmessage = (ev) => {
        const f = JSON.parse(String(ev.data))
        frames.push(f)
        if (f.type === 'seen_changed') resolve(f)
      }
    })
    await new Promise<void>((r) => ws.addEventListener('open', () => r()))
    const res = await mark(phone.bearer, { pane: 'w1:p1', seq: 5 })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({ pane: 'w1:p1', seq: 5, changed: true })
    const f = await gotSeen
    expect(f).toMatchObject({ source: 'bridge', type: 'seen_changed', payload: { pane: 'w1:p1', seq: 5, at: body.at } })
    ws.close()
    const lower = await (await mark(laptop.bearer, { pane: 'w1:p1', seq: 3 })).json()
    expect(lower).toEqual({ pane: 'w1:p1', seq: 5, at: body.at, changed: false })
    const all = await (await bridge.request('/seen', { token: laptop.bearer })).json()
    expect(all).toEqual({ seen: { 'w1:p1': { seq: 5, at: body.at } } })
  })

  it('refuses bad input with one line', async () => {
    const cases: [unknown, string][] = [
      [{ pane: 'w1:p1' }, 'seq: want a number'],
      [{ pane: 'w1:p1', seq: '2' }, 'seq: want a number'],
      [{ pane: 'w1:p1', seq: 1.5 }, 'seq: want an integer'],
      [{ pane: 'w1:p1', seq: -1 }, 'seq: want 0 or more'],
      [{ pane: '', seq: 1 }, 'pane: want a pane id'],
      [{ pane: 'a\nb', seq: 1 }, 'pane: control characters are not allowed'],
    ]
    for (const [body, error] of cases) {
      const r = await mark(phone.bearer, body)
      expect([r.status, await r.json()]).toEqual([400, { error }])
    }
  })

  it('keeps the marks across a restart', async () => {
    const dataDir = bridge.dataDir
    await bridge.close()
    bridge = await startBridge({ home, dataDir })
    const all = await (await bridge.request('/seen')).json()
    expect(all.seen['w1:p1'].seq).toBe(5)
  })
})
