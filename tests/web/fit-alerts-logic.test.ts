// Pure pieces behind the terminal fit and the alerts button (no browser).
import { describe, expect, it } from 'vitest'
import { DEFAULT_WATCH_SIZE, fitFont, MAX_FONT, MIN_FONT, paneRect } from '../../plugins/web/app/src/lib/pane-size.ts'
import { alertRoute, alertsDeliverable } from '../../plugins/web/app/src/lib/alerts.ts'

describe('terminal fit', () => {
  it('finds the pane in a session snapshot by id, in cells', () => {
    const snap = {
      layouts: [
        {
          panes: [
            { pane_id: 'w1:p1', rect: { x: 0, y: 0, width: 60, height: 40 } },
            { pane_id: 'w1:p2', rect: { x: 61, y: 0, width: 59, height: 40 } },
          ],
        },
        { panes: [{ pane_id: 'work/w1:p1', rect: { x: 0, y: 0, width: 200, height: 50 } }] },
      ],
    }
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
  it('Firebase first, then Web Push, else nothing to offer', () => {
    expect(alertRoute({ pushConfig: { apiKey: 'k' }, webPushKey: 'BKey' })).toEqual({ via: 'fcm', config: { apiKey: 'k' } })
    expect(alertRoute({ pushConfig: null, webPushKey: 'BKey' })).toEqual({ via: 'webpush', key: 'BKey' })
    expect(alertRoute({ pushConfig: null, webPushKey: null })).toBeNull()
    expect(alertRoute({ pushConfig: null, webPushKey: '' })).toBeNull()
    expect(alertsDeliverable({ pushConfig: null, webPushKey: null })).toBe(false)
    expect(alertsDeliverable({ pushConfig: null, webPushKey: 'BKey' })).toBe(true)
  })
})
