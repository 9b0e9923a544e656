// The web app's toasts: which one the single line shows, what the cap drops, and when each goes.
// An agent's alert arriving just after a tap must not hide the tap's result.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { addToast, createToasts, shownToast, TOAST_MS, type Toast } from '../../plugins/web/app/src/lib/toasts.ts'

const t = (id: number, kind: Toast['kind'], text = `t${id}`): Toast => ({ id, text, kind })
const texts = (list: readonly Toast[]) => list.map((x) => x.text)

describe('toasts', () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

  it('shows the newest result of what the user did before any alert that came after it', () => {
    expect(shownToast([])).toBeUndefined()
    expect(shownToast([t(1, 'alert'), t(2, 'info', 'Opened tab'), t(3, 'alert', 'claude is done')])?.text).toBe('Opened tab')
    expect(shownToast([t(1, 'info'), t(2, 'error', 'failed'), t(3, 'alert')])?.text).toBe('failed')
    expect(shownToast([t(1, 'alert'), t(2, 'alert', 'newest alert')])?.text).toBe('newest alert')
  })

  it('drops the oldest alert first past the cap, so a burst of alerts keeps the result', () => {
    const list = [t(1, 'info', 'result'), t(2, 'alert'), t(3, 'alert')]
    expect(texts(addToast(list, t(4, 'alert', 'a4'), 3))).toEqual(['result', 't3', 'a4'])
    expect(texts(addToast([t(1, 'info'), t(2, 'error')], t(3, 'info'), 2))).toEqual(['t2', 't3'])
  })

  it('keeps a result 5 s and an alert 10 s, and a later alert leaves the result on the line', () => {
    const store = createToasts()
    store.push('Opened tab w1:t3 in repo')
    vi.advanceTimersByTime(1000)
    store.push('claude is done', 'alert')
    expect(shownToast(store.list())?.text).toBe('Opened tab w1:t3 in repo')
    vi.advanceTimersByTime(TOAST_MS.info - 1000 - 1)
    expect(texts(store.list())).toEqual(['Opened tab w1:t3 in repo', 'claude is done'])
    vi.advanceTimersByTime(1)
    expect(texts(store.list())).toEqual(['claude is done'])
    vi.advanceTimersByTime(TOAST_MS.alert - TOAST_MS.info + 1000)
    expect(store.list()).toEqual([])
  })
})
