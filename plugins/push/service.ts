import { randomBytes } from 'node:crypto'
import type { PluginContext } from '../../core/plugin.ts'
import { payloadText, type BusEvent } from '../../core/bus.ts'
import type { AgentInfo } from '../../core/herdr/index.ts'
import { isDefaultSession, qualifyId, splitId } from '../../core/herdr/index.ts'
import { readCard } from '../../core/card.ts'
import type { AlertEvent, Delivery, DismissEvent } from '../../lib/notify/events.ts'
import { approveLabel, cardForAlert, composeAlert, tagOf, type Alert, type AlertCard } from './compose.ts'
import { createPacer, createTransitions, type Change, type NotifyStatus } from './transitions.ts'
import { createAlertedStore, type AlertedStore } from './alerted.ts'
import type { MuteStore } from './mutes.ts'
import type { ChannelChoiceStore } from './channel-choice.ts'

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
  /** Per-device channels each device turned off (`/notify/channels`). */
  choices: ChannelChoiceStore
  /** Resolves once the start-up states were recorded: from here on, changes alert. */
  started: Promise<void>
  fanoutAlert(alert: Alert, extra?: { seq?: number; agent?: string; approve?: string; test?: boolean; channels?: string[] }): Promise<FanoutResult>
  handle(event: BusEvent): void
  /** herdr's session (re)connected: list its agents again (a state reached meanwhile alerts). */
  reconnected(session: string): void
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

/** How alerts are paced (README: Alerts): the push plugin's `notify.settle_ms` and `notify.cooldown_ms`. */
export interface Pacing {
  settleMs: number
  cooldownMs: number
}

export function createPushService(ctx: PluginContext, mutes: MuteStore, pacing: Pacing, choices: ChannelChoiceStore): PushService {
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

  /** What was alerted, across restarts (alerted.ts); loaded before the first listing. */
  let alerted!: AlertedStore
  const pacer = createPacer({
    settleMs: pacing.settleMs,
    cooldownMs: pacing.cooldownMs,
    now: ctx.now,
    fire: (pane, status) => queue(pane, 'alert', () => alertFor(pane, status)),
  })

  /**
   * A session's agents as listed (start-up, and each herdr (re)connect): a blocked or done agent
   * not alerted for that state yet alerts; an alert of an agent that moved on meanwhile is dismissed.
   */
  const observe = async (session: string) => {
    let agents: AgentInfo[]
    try {
      agents = (await ctx.herdr.call<{ agents?: AgentInfo[] }>(session, 'agent.list', {}, { timeoutMs: 5000 }))?.agents ?? []
    } catch {
      return // A session that is down has nothing to observe; its reconnect lists again.
    }
    const listed = new Set<string>()
    for (const a of agents) {
      if (!a?.pane_id) continue
      const pane = qualifyId(session, a.pane_id)
      listed.add(pane)
      const seq = typeof a.state_change_seq === 'number' ? a.state_change_seq : undefined
      const c = transitions.observe(pane, String(a.agent_status ?? 'unknown'))
      if (c?.kind === 'enter' && seq !== undefined && alerted.get(pane) === seq) continue
      act(pane, c)
    }
    // Alerted panes of this session that are gone altogether.
    for (const pane of alerted.panes()) if (sameSession(splitId(pane).session, session) && !listed.has(pane)) act(pane, { kind: 'leave' })
  }

  const baselined = (async () => {
    alerted = await createAlertedStore(ctx.storage)
    await Promise.all(ctx.herdr.sessions().map(observe))
  })()

  const channels = ctx.services.notifyChannels
  const total = (got: Record<string, Delivery>): FanoutResult => {
    const list = Object.values(got)
    return { sent: list.reduce((n, d) => n + d.sent, 0), total: list.reduce((n, d) => n + d.total, 0), channels: got }
  }

  /**
   * Where a phone opens the web app: public_url, else the latest `bridge pair --url`; else the
   * link stays relative (a service worker opens it on its own origin; ntfy and webhooks leave it out).
   */
  const publicBase = () => ctx.config.transport.public_url || (ctx.config.transport.pair_urls ?? []).at(-1) || ''

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
      ...alert.card,
      muted: extra.test ? [] : mutes.mutedFor(alert.data.agent),
      // A test alert checks the channels, like a mute it ignores a device's choice.
      ...(extra.test ? {} : { off: choices.offByChannel() }),
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
    const seqNow = typeof agent?.state_change_seq === 'number' ? agent.state_change_seq : -1
    // The same state alerted already (before a restart, or listed again on a reconnect): once is enough.
    if (seqNow >= 0 && alerted.get(pane) === seqNow) return
    pacer.sent(pane)
    await alerted.set(pane, seqNow).catch((err) => ctx.log.warn(`push: cannot save the alerted list: ${(err as Error).message}`))
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

  /** One pane's work in order: its alert, then its dismissal. */
  const queue = (pane: string, what: string, job: () => Promise<void>) => {
    const next = (chains.get(pane) ?? Promise.resolve()).then(job).catch((err) => ctx.log.warn(`push ${what} for ${pane} failed: ${(err as Error).message}`))
    chains.set(pane, next)
    void next.then(() => {
      if (chains.get(pane) === next) chains.delete(pane)
    })
  }

  /** An entered state waits in the pacer (settle, cooldown); a left one drops that wait and dismisses what was shown. */
  const act = (pane: string, c: Change) => {
    if (!c) return
    if (c.kind === 'enter') return pacer.entered(pane, c.status)
    pacer.left(pane)
    queue(pane, 'dismiss', async () => {
      // Only what was shown is taken back (an alert still settling never went out).
      if (alerted.get(pane) === undefined) return
      await alerted.delete(pane).catch(() => {})
      await fanoutDismiss(pane)
    })
  }

  /** Ids on the bus are already qualified; a bare id with a session label is qualified here. */
  const paneOf = (ev: BusEvent): string | null => {
    const id = payloadText(ev, 'pane_id', '')
    const session = payloadText(ev, 'session', '')
    if (!id) return null
    return id.includes('/') || !session ? id : qualifyId(session, id)
  }

  let pending: Promise<void> = Promise.resolve()
  const handle = (ev: BusEvent) => {
    if (closed || ev.source !== 'multiplexer') return
    if (ev.type !== 'pane_agent_status_changed' && ev.type !== 'pane_closed' && ev.type !== 'pane_exited') return
    const pane = paneOf(ev)
    if (!pane) return
    // Events wait for the baseline so a start-up state is never mistaken for a transition.
    pending = pending.then(async () => {
      await baselined
      if (ev.type === 'pane_agent_status_changed') act(pane, transitions.status(pane, payloadText(ev, 'agent_status', 'unknown')))
      else act(pane, transitions.closed(pane))
    })
  }

  /** herdr (re)connected: its agents are listed again, in line with the events. */
  const reconnected = (session: string) => {
    if (closed) return
    pending = pending.then(async () => {
      await baselined
      await observe(session)
    })
  }

  return {
    mutes,
    choices,
    started: baselined,
    fanoutAlert,
    handle,
    reconnected,
    async idle() {
      await pending
      await pacer.idle()
      while (chains.size || counting.size) await Promise.all([...chains.values(), ...counting])
    },
    async close() {
      closed = true
      pacer.close()
      await Promise.race([Promise.all([...chains.values()]), new Promise((r) => setTimeout(r, 2000).unref())])
    },
  }
}

const sameSession = (a: string, b: string) => a === b || (isDefaultSession(a) && isDefaultSession(b))

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms)
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    )
  })
}
