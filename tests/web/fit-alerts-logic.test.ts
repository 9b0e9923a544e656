// Pure pieces behind the terminal fit and the alerts button (no browser).
import { describe, expect, it } from 'vitest'
import { DEFAULT_WATCH_SIZE, fitFont, MAX_FONT, MIN_FONT, paneRect } from '../../plugins/web/app/src/lib/pane-size.ts'
import { alertsDeliverable } from '../../plugins/web/app/src/lib/alerts.ts'

describe('terminal fit', () => {
  it('finds the pane in a session snapshot by id, in cells', () => {
    const snap = { layouts: [{ panes: [{ pane_id: 'w1:p1', rect: { x: 0, y: 0, width: 60, height: 40 } }, { pane_id: 'w1:p2', rect: { x: 61, y: 0, width: 59, height: 40 } }] }, { panes: [{ pane_id: 'work/w1:p1', rect: { x: 0, y: 0, width: 200, height: 50 } }] }] }
    expect(paneRect(snap, 'w1:p2')).toEqual({ cols: 59, rows: 40 })
    expect(paneRect(snap, 'work/w1:p1')).toEqual({ cols: 200, rows: 50 })
    expect(paneRect(snap, 'w9:p9')).toBeNull()
    expect(paneRect({ layouts: [{ panes: [{ pane_id: 'w1:p1', rect: { width: 0, height: 10 } }] }] }, 'w1:p1')).toBeNull()
    expect(paneRect(null, 'w1:p1')).toBeNull()
    expect(DEFAULT_WATCH_SIZE).toEqual({ cols: 120, rows: 40 })
  })

  it('scales the font to the limiting side and clamps it to a legible range', () => {
    const cell = { width: 8, height: 16 } // at 13 px
    // 120×40 at 13 px is 960×640: a 480×640 box halves it (width limits).
    expect(fitFont(13, cell, { cols: 120, rows: 40 }, { width: 480, height: 640 })).toBe(MIN_FONT)
    expect(fitFont(13, cell, { cols: 120, rows: 40 }, { width: 960, height: 576 })).toBe(11.7)
    expect(fitFont(13, cell, { cols: 80, rows: 24 }, { width: 4000, height: 4000 })).toBe(MAX_FONT)
    // Not laid out yet: the font stays.
    expect(fitFont(13, { width: 0, height: 0 }, { cols: 80, rows: 24 }, { width: 100, height: 100 })).toBe(13)
    expect(fitFont(13, cell, { cols: 80, rows: 24 }, { width: 0, height: 300 })).toBe(13)
  })
})

describe('alerts', () => {
  const json = (status: number) => new Response('{}', { status, headers: { 'content-type': 'application/json' } })
  const shell = () => new Response('<!doctype html>', { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' } })

  it('deliverable with a web push config, without asking for anything else', async () => {
    const asked: string[] = []
    expect(await alertsDeliverable(async () => ({ apiKey: 'k' }), async (u) => (asked.push(u), json(200)))).toBe(true)
    expect(asked).toEqual([])
  })

  it('deliverable with a Web Push key; the app shell answering an unknown path does not count', async () => {
    expect(await alertsDeliverable(async () => null, async () => json(200))).toBe(true)
    expect(await alertsDeliverable(async () => null, async () => shell())).toBe(false)
    expect(await alertsDeliverable(async () => null, async () => json(404))).toBe(false)
    expect(
      await alertsDeliverable(
        async () => null,
        async () => {
          throw new TypeError('fetch failed')
        },
      ),
    ).toBe(false)
  })
})
