/**
 * The conformance suite every notification channel passes, the way unstorage runs one
 * `testDriver` over all its drivers: `testNotifier(subject)` starts a real bridge with the
 * channel under test beside a recording witness channel and checks, against the channel's own
 * target (a loopback stand-in), that
 *   - it describes itself: configured, with a one-line detail, in the registry and /admin/status;
 *   - a test alert naming one channel reaches that channel alone (the witness, then the subject);
 *   - a dismissal follows its alert, in order, for the channels that take one back;
 *   - a slow or failing channel holds no other back (the witness stalls, then fails; and the
 *     subject's target stalls, where it can).
 * A subject says how to start its target, which plugin entry and env reach it, and how to read
 * what arrived there as alerts and dismissals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PluginEntry } from '../../core/plugin.ts'
import { defineNotifierPlugin } from '../../core/notify/notifier.ts'
import type { AlertEvent, DismissEvent } from '../../lib/notify/events.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'
import pairing from '../../plugins/pairing/index.ts'
import push from '../../plugins/push/index.ts'
import health from '../../plugins/health/index.ts'

export interface Delivered {
  kind: 'alert' | 'dismiss'
  pane: string
}

export interface NotifierTarget {
  plugin: PluginEntry
  env?: Record<string, string>
  /** The bridge's HOME, when the target needs files there before start (credentials). */
  home?: string
  /** After the bridge started: a device or subscription, so the channel has somewhere to send. */
  prepare?(b: TestBridge): Promise<void>
  /** What reached the target so far, in arrival order. */
  delivered(): Delivered[]
  /** Leaves every request to the target unanswered (true) or answers again (false); absent when the target cannot. */
  stall?(on: boolean): void
  close(): Promise<void>
}

export interface NotifierSubject {
  channel: string
  /** Whether the channel takes a notification back (ntfy and chat rooms cannot). */
  dismisses: boolean
  /** Whether its target can be made to stall (`NotifierTarget.stall`). */
  stalls: boolean
  start(): Promise<NotifierTarget>
}

/** The bridge's public URL: every alert links to its pane there (`…/#/open/<server id>/<pane>`). */
export const PUBLIC_URL = 'https://bridge.example'
/** The pane an alert's link opens (the test alert's is `test`). */
export const paneOfLink = (url: string) => decodeURIComponent(url.slice(url.lastIndexOf('/') + 1))

/** A recording channel to stand beside the subject: it can answer, stall until released, or fail. */
function createWitness() {
  const seen: Delivered[] = []
  let mode: 'answer' | 'stall' | 'fail' = 'answer'
  let release: () => void = () => {}
  let released = Promise.resolve()
  const act = async (d: Delivered) => {
    seen.push(d)
    if (mode === 'stall') await released
    if (mode === 'fail') throw new Error('witness failing on purpose')
    return { sent: 1, total: 1, enabled: true }
  }
  const plugin = defineNotifierPlugin({
    name: 'notify-witness',
    channel: 'witness',
    create: () => ({
      describe: () => ({ configured: true, detail: 'records what it is handed' }),
      alert: (ev: AlertEvent) => act({ kind: 'alert', pane: ev.pane }),
      dismiss: (ev: DismissEvent) => act({ kind: 'dismiss', pane: ev.pane }),
    }),
  })
  return {
    plugin,
    seen,
    set(next: typeof mode) {
      if (next === 'stall') released = new Promise<void>((r) => (release = r))
      else release()
      mode = next
    },
  }
}

const of = (list: Delivered[], pane: string) => list.filter((d) => d.pane === pane).map((d) => d.kind)

export function testNotifier(subject: NotifierSubject): void {
  describe(`notifier conformance: ${subject.channel}`, () => {
    let target: NotifierTarget
    let b: TestBridge
    const witness = createWitness()
    let n = 0
    const nextPane = () => `w9:p${++n}`
    const status = (pane: string, agent_status: string) =>
      b.bridge.ctx.bus.publish('multiplexer', 'pane_agent_status_changed', { pane_id: pane, workspace_id: 'w9', agent: 'claude', agent_status, session: 'default' })

    beforeAll(async () => {
      target = await subject.start()
      b = await startBridge({
        ...(target.home ? { home: target.home } : {}),
        env: { BRIDGE_PUBLIC_URL: PUBLIC_URL, BRIDGE_ALERT_SETTLE_MS: '0', BRIDGE_ALERT_COOLDOWN_MS: '0', ...target.env },
        user: { plugins: [pairing, health, push, target.plugin, witness.plugin] },
      })
      await target.prepare?.(b)
      await b.bridge.state(push)!.started
    })
    afterAll(async () => {
      witness.set('answer')
      await b?.close()
      await target?.close()
    })

    it('describes itself: configured, in one line, in the registry and in /admin/status', async () => {
      const s = b.bridge.ctx.services.notifyChannels.status(subject.channel)
      expect(s?.configured).toBe(true)
      expect(s?.detail).toMatch(/^[^\n]+$/)
      const r = await b.request('/admin/status')
      const alerts = (await r.json()).alerts as { channel: string; loaded: boolean; configured: boolean; detail: string }[]
      expect(alerts.find((a) => a.channel === subject.channel)).toEqual({ channel: subject.channel, loaded: true, configured: true, detail: s!.detail })
      expect(alerts.find((a) => a.channel === 'witness')).toEqual({ channel: 'witness', loaded: true, configured: true, detail: 'records what it is handed' })
    })

    it('a test alert naming one channel reaches that channel alone', async () => {
      const before = target.delivered().length
      const w = await b.request('/admin/notify/test', { method: 'POST', json: { channel: 'witness' } })
      expect(await w.json()).toEqual({ channels: [{ channel: 'witness', sent: 1, total: 1, enabled: true }] })
      // The route answers once the named channels settled: anything sent to the subject is in by now.
      expect(target.delivered().slice(before)).toEqual([])
      expect(witness.seen.at(-1)).toEqual({ kind: 'alert', pane: 'test' })

      const seenByWitness = witness.seen.length
      const r = await b.request('/admin/notify/test', { method: 'POST', json: { channel: subject.channel } })
      const body = await r.json()
      expect(body.channels.map((c: { channel: string }) => c.channel)).toEqual([subject.channel])
      expect(body.channels[0].sent).toBeGreaterThan(0)
      expect(target.delivered().slice(before)).toEqual([{ kind: 'alert', pane: 'test' }])
      expect(witness.seen.length).toBe(seenByWitness)
    })

    it(subject.dismisses ? 'a dismissal follows its alert' : 'an alert goes out; a dismissal sends nothing it cannot take back', async () => {
      const pane = nextPane()
      status(pane, 'blocked')
      await until(
        () => of(target.delivered(), pane).length > 0,
        () => `the ${subject.channel} target to get the alert for ${pane}`,
      )
      status(pane, 'working')
      await until(
        () => of(witness.seen, pane).length === 2,
        () => `the witness to get the dismissal for ${pane}`,
      )
      if (subject.dismisses)
        await until(
          () => of(target.delivered(), pane).length === 2,
          () => `the ${subject.channel} target to get the dismissal for ${pane}`,
        )
      await b.bridge.state(push)!.idle()
      expect(of(target.delivered(), pane)).toEqual(subject.dismisses ? ['alert', 'dismiss'] : ['alert'])
      expect(of(witness.seen, pane)).toEqual(['alert', 'dismiss'])
    })

    it('a stalled or failing channel holds this one back in nothing', async () => {
      for (const mode of ['stall', 'fail'] as const) {
        witness.set(mode)
        const pane = nextPane()
        status(pane, 'blocked')
        await until(
          () => of(target.delivered(), pane).length > 0,
          () => `the ${subject.channel} target to get the alert for ${pane} while the witness does ${mode}`,
        )
        status(pane, 'working')
        if (subject.dismisses)
          await until(
            () => of(target.delivered(), pane).length === 2,
            () => `the ${subject.channel} target to get the dismissal for ${pane}`,
          )
        expect(of(target.delivered(), pane)).toEqual(subject.dismisses ? ['alert', 'dismiss'] : ['alert'])
        witness.set('answer')
        await b.bridge.state(push)!.idle()
      }
    })

    if (subject.stalls)
      it('a stalled target of this channel holds the others back in nothing', async () => {
        target.stall!(true)
        try {
          const pane = nextPane()
          status(pane, 'blocked')
          await until(
            () => of(witness.seen, pane).length === 1,
            () => `the witness to get the alert for ${pane} while ${subject.channel} stalls`,
          )
          status(pane, 'working')
          await until(
            () => of(witness.seen, pane).length === 2,
            () => `the witness to get the dismissal for ${pane} while ${subject.channel} stalls`,
          )
          expect(of(witness.seen, pane)).toEqual(['alert', 'dismiss'])
        } finally {
          target.stall!(false)
        }
      })
  })
}
