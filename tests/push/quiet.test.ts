// Quiet hours: a device's daily window without alerts, in its own time zone. The store decides
// who is muted for a pane (channels skip those devices); the routes set and read the window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createStorage } from 'unstorage'
import { createMuteStore, inQuietHours } from '../../plugins/push/mutes.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'

const at = (hhmm: string) => Date.parse(`2026-11-25T${hhmm}:00Z`)

describe('quiet hours', () => {
  it('holds inside the window, across midnight too, in the device’s time zone', () => {
    const night = { from: 22 * 60, to: 7 * 60, utc_offset: 0 }
    expect([at('21:59'), at('22:00'), at('03:00'), at('06:59'), at('07:00'), at('12:00')].map((t) => inQuietHours(night, t))).toEqual([false, true, true, true, false, false])
    const lunch = { from: 12 * 60, to: 13 * 60, utc_offset: 60 }
    // 11:30 UTC is 12:30 at UTC+1.
    expect([inQuietHours(lunch, at('11:30')), inQuietHours(lunch, at('12:30'))]).toEqual([true, false])
    expect(inQuietHours({ from: 600, to: 600, utc_offset: 0 }, at('10:00'))).toBe(false)
  })

  it('counts a device in its quiet hours as muted for every pane, and keeps the window across a restart', async () => {
    const storage = createStorage()
    let now = at('23:00')
    const store = await createMuteStore(storage, () => now)
    await store.setQuiet('d1', { from: 22 * 60, to: 7 * 60, utc_offset: 0 })
    await store.mute('d2', 'w1:p1', 0)
    expect(store.mutedFor('w1:p1').sort()).toEqual(['d1', 'd2'])
    expect(store.mutedFor('w9:p9')).toEqual(['d1'])
    now = at('08:00')
    expect(store.mutedFor('w9:p9')).toEqual([])
    const again = await createMuteStore(storage, () => at('23:30'))
    expect(again.quiet('d1')).toEqual({ from: 1320, to: 420, utc_offset: 0 })
    expect(again.mutedFor('w9:p9')).toEqual(['d1'])
    await again.forgetDevice('d1')
    expect(again.quiet('d1')).toBeNull()
  })

  describe('routes', () => {
    let bridge: TestBridge
    let phone: { bearer: string }
    beforeAll(async () => {
      bridge = await startBridge()
      phone = await bridge.pair('phone')
    })
    afterAll(() => bridge?.close())
    const post = (body: unknown) => bridge.request('/notify/quiet', { method: 'POST', token: phone.bearer, json: body })

    it('sets, reads and clears this device’s quiet hours', async () => {
      expect(await (await bridge.request('/notify/quiet', { token: phone.bearer })).json()).toEqual({ quiet: null })
      const set = await post({ from: '22:30', to: '07:00', utc_offset: 60 })
      expect(await set.json()).toEqual({ ok: true, quiet: { from: '22:30', to: '07:00', utc_offset: 60 } })
      expect(await (await bridge.request('/notify/quiet', { token: phone.bearer })).json()).toEqual({ quiet: { from: '22:30', to: '07:00', utc_offset: 60 } })
      expect(await (await post({})).json()).toEqual({ ok: true, quiet: null })
    })

    it('refuses bad input with one line', async () => {
      const cases: [unknown, string][] = [
        [{ from: '25:00', to: '07:00' }, 'from: want HH:MM'],
        [{ from: '22:00' }, 'want both from and to, or neither (off)'],
        [{ from: '22:00', to: '7:00' }, 'to: want HH:MM'],
        [{ from: '22:00', to: '07:00', utc_offset: 2000 }, 'utc_offset: -840 to 840'],
      ]
      for (const [body, error] of cases) {
        const r = await post(body)
        expect([r.status, await r.json()]).toEqual([400, { error }])
      }
    })
  })
})
