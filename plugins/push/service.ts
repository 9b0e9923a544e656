import { randomBytes } from 'node:crypto'
import type { PluginContext } from '../../core/plugin.ts'
import type { BusEvent } from '../../core/bus.ts'
import type { AgentInfo } from '../../core/herdr/index.ts'
import { qualifyId } from '../../core/herdr/index.ts'
import { readCard } from '../../core/card.ts'
import type { AlertEvent, Delivery, DismissEvent } from '../../lib/notify/events.ts'
import { approveLabel, cardForAlert, composeAlert, tagOf, type Alert, type AlertCard } from './compose.ts'
import { createTransitions, type Action, type NotifyStatus } from './transitions.ts'
import type { MuteStore } from './mutes.ts'

/**
 * The alert watcher: bus events → transitions → alerts and dismissals, handed to every running
 * notification channel (the `notifyChannels` service) at once. Work for one pane is chained so
 * its alert and dismissal go out in order; panes do not wait for each other, and nothing here
 * holds up the bus for other subscribers. Each channel answers with its Delivery; their sum is
 * `push_sent`.
 */

export interface FanoutResult {
  sent: number
  total: number
  /** One result per channel the alert went to. */
  channels: Record<string, Delivery>
}

export interface PushService {
  /** Per-device pane mutes (`/notify/mute`). */
  mutes: MuteStore
  /** Resolves once the start-up states were recorded: from here on, changes alert. */
  started: Promise<void>
  fanoutAlert(alert: Alert, extra?: { seq?: number; agent?: string; approve?: string; test?: boolean; channels?: string[] }): Promise<FanoutResult>
  handle(event: BusEvent): void
  /** Resolves when every queued alert and dismissal has been handled. */
  idle(): Promise<void>
  close(): Promise<void>
}

const CARD_TIMEOUT_MS = 4000

/** `#/open/<server_id>/<pane>`: the web app's link from a notification (route.ts). */
export function paneUrl(publicUrl: string, serverId: string, pane: string): string {
  const hash = `#/open/${encodeURIComponent(serverId || '-')}/${encodeURIComponent(pane)}`
  return `${publicUrl.replace(/\/+$/, '')}/${hash}`
}

export function createPushService(ctx: PluginContext, mutes: MuteStore): PushService {
  const transitions = createTransitions()
  const chains = new Map<string, Promise<void>>()
  /** The last alert per pane, so its dismissal can name what it clears. */
  const lastAlert = new Map<string, { title: string; agent: string }>()
  /** Counts still being collected: a pane's next event never waits for them. */
  const counting = new Set<Promise<void>>()
  const detach = (p: Promise<void>) => {
    counting.add(p)
    void p.finally(() => counting.delete(p))
  }
  let closed = false

  /** Starting states are recorded, not alerted: a state that already held when the watcher started is never replayed. */
  const baselined = (async () => {
    await Promise.all(
      ctx.herdr.sessions().map(async (session) => {
        try {
          const r = await ctx.herdr.call<{ agents?: AgentInfo[] }>(session, 'agent.list', {}, { timeoutMs: 5000 })
          for (const a of r?.agents ?? []) if (a?.pane_id) transitions.baseline(qualifyId(session, a.pane_id), String(a.agent_status ?? 'unknown'))
        } catch {
          // A session that is down has no states to replay.
        }
      }),
    )
  })()

  const channels = ctx.services.notifyChannels
  const total = (got: Record<string, Delivery>): FanoutResult => {
    const list = Object.values(got)
    return { sent: list.reduce((n, d) => n + d.sent, 0), total: list.reduce((n, d) => n + d.total, 0), channels: got }
  }

  const publicBase = () => ctx.config.transport.public_url || ''

  const fanoutAlert: PushService['fanoutAlert'] = (alert, extra = {}) => {
    const ev: AlertEvent = {
      id: randomBytes(8).toString('hex'),
      tag: alert.tag,
      status: alert.status,
      title: alert.title,
      body: alert.body,
      pane: alert.data.agent,
      agent: extra.agent ?? '',
      agent_title: alert.data.agent_title ?? '',
      server_id: ctx.config.server_id,
      server_name: ctx.config.server_name,
      ...(extra.seq !== undefined ? { seq: extra.seq } : {}),
      url: paneUrl(publicBase(), ctx.config.server_id, alert.data.agent),
      ...(extra.approve ? { approve: extra.approve } : {}),
      fcm_data: alert.data,
      muted: extra.test ? [] : mutes.mutedFor(alert.data.agent),
      ts: ctx.now(),
      ...(extra.test ? { test: true } : {}),
      ...(extra.channels ? { channels: extra.channels } : {}),
    }
    return channels.alert(ev).then(total)
  }

  const fanoutDismiss = async (pane: string) => {
    const last = lastAlert.get(pane)
    lastAlert.delete(pane)
    const ev: DismissEvent = {
      id: randomBytes(8).toString('hex'),
      tag: tagOf(ctx.config.server_id, pane),
      server_id: ctx.config.server_id,
      pane,
      agent: last?.agent ?? '',
      title: last?.title ?? '',
      ts: ctx.now(),
    }
    detach(channels.dismiss(ev).then(() => void ctx.bus.publish('bridge', 'notification_cleared', { pane, server_id: ctx.config.server_id }, { internal: true })))
  }

  const alertFor = async (pane: string, status: NotifyStatus) => {
    let agent: AgentInfo | null = null
    try {
      agent = (await ctx.herdr.getAgent(pane))?.agent ?? null
    } catch (err) {
      ctx.log.debug(`push: agent.get ${pane} failed: ${(err as Error).message}`)
    }
    let card: AlertCard | null = null
    if (agent) {
      try {
        card = cardForAlert(await withTimeout(readCard(ctx, pane, { agent }), CARD_TIMEOUT_MS))
      } catch {
        // The card is best effort: the alert goes out with the title alone.
      }
    }
    const seq = typeof agent?.state_change_seq === 'number' ? agent.state_change_seq : undefined
    const alert = composeAlert({
      serverId: ctx.config.server_id,
      serverName: ctx.config.server_name,
      pane,
      status,
      seq,
      agentTitle: String(agent?.terminal_title_stripped || agent?.name || ''),
      card,
    })
    const kind = typeof agent?.agent === 'string' ? agent.agent : ''
    lastAlert.set(pane, { title: alert.title, agent: kind })
    const approve = status === 'blocked' && seq !== undefined ? approveLabel(card) : undefined
    // Published now; counted as the channels answer. The pane's next event (a dismissal) goes
    // out at once: each channel keeps a pane's messages in order, and a stalled channel must
    // not hold the others' dismissal back.
    detach(
      fanoutAlert(alert, { seq, agent: kind, approve }).then(({ sent, total }) => {
        ctx.bus.publish('bridge', 'push_sent', { agent: pane, status, title: alert.title, seq: seq ?? 0, sent, total, server_id: ctx.config.server_id })
      }),
    )
  }

  const run = (pane: string, actions: Action[]) => {
    for (const a of actions) {
      const job = a.kind === 'alert' ? () => alertFor(pane, a.status) : () => fanoutDismiss(pane)
      const next = (chains.get(pane) ?? Promise.resolve()).then(job).catch((err) => ctx.log.warn(`push ${a.kind} for ${pane} failed: ${(err as Error).message}`))
      chains.set(pane, next)
      void next.then(() => {
        if (chains.get(pane) === next) chains.delete(pane)
      })
    }
  }

  /** Ids on the bus are already qualified; a bare id with a session label is qualified here. */
  const paneOf = (p: any): string | null => {
    const id = typeof p?.pane_id === 'string' ? p.pane_id : ''
    if (!id) return null
    return id.includes('/') || !p.session ? id : qualifyId(String(p.session), id)
  }

  let pending: Promise<void> = Promise.resolve()
  const handle = (ev: BusEvent) => {
    if (closed || ev.source !== 'multiplexer') return
    if (ev.type !== 'pane_agent_status_changed' && ev.type !== 'pane_closed' && ev.type !== 'pane_exited') return
    const pane = paneOf(ev.payload)
    if (!pane) return
    // Events wait for the baseline so a start-up state is never mistaken for a transition.
    pending = pending.then(async () => {
      await baselined
      if (ev.type === 'pane_agent_status_changed') run(pane, transitions.status(pane, String(ev.payload.agent_status ?? 'unknown')))
      else run(pane, transitions.closed(pane))
    })
  }

  return {
    mutes,
    started: baselined,
    fanoutAlert,
    handle,
    async idle() {
      await pending
      while (chains.size || counting.size) await Promise.all([...chains.values(), ...counting])
    },
    async close() {
      closed = true
      await Promise.race([Promise.all([...chains.values()]), new Promise((r) => setTimeout(r, 2000).unref())])
    },
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms)
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    )
  })
}
