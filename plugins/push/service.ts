import type { Agent } from 'node:http'
import type { Message } from 'firebase-admin/messaging'
import type { PluginContext } from '../../core/plugin.ts'
import type { BusEvent } from '../../core/bus.ts'
import type { AgentInfo } from '../../core/herdr/index.ts'
import { qualifyId } from '../../core/herdr/index.ts'
import { readCard } from '../../lib/card.ts'
import { readJsonFile } from '../../storage/atomic-file.ts'
import { alertMessages, cardForAlert, composeAlert, dismissMessage, DEFAULT_ANDROID_CHANNELS, type Alert, type AlertCard, type AndroidChannels } from './compose.ts'
import { createTransitions, type Action, type NotifyStatus } from './transitions.ts'
import { findCredential, describeCredential, CredentialError, type FoundCredential } from './credentials.ts'
import { createFcmSender, useQuotaProject, type PushSender, type SendResult } from './sender.ts'

/**
 * The push watcher: bus events → transitions → alerts and dismissals fanned out to every
 * device's push token. Work for one pane is chained so its alert and dismiss go out in order;
 * panes do not wait for each other, and nothing here holds up the bus for other subscribers.
 */

export interface PushOptions {
  /** Channel ids for the OS-drawn notification; also read from config.json `push.android_channels`. */
  android_channels?: Partial<AndroidChannels>
  /** Agent for every Google request (OAuth and FCM). Tests point it at a local fake FCM. */
  httpAgent?: Agent
  /** Delays between send attempts on transient failures. */
  backoffMs?: number[]
}

export interface FanoutResult {
  sent: number
  total: number
}

export interface PushService {
  /** Resolves once credentials were looked up (push then sends or only logs). */
  ready: Promise<void>
  /** Resolves once the start-up states were recorded as well: from here on, changes alert. */
  started: Promise<void>
  readonly credential: FoundCredential | null
  readonly channels: AndroidChannels
  fanoutAlert(alert: Alert): Promise<FanoutResult>
  handle(event: BusEvent): void
  /** Resolves when every queued alert and dismissal has been handled. */
  idle(): Promise<void>
  close(): Promise<void>
}

const CARD_TIMEOUT_MS = 4000

export function createPushService(ctx: PluginContext, options: PushOptions = {}): PushService {
  const channels = resolveChannels(ctx, options)
  const transitions = createTransitions()
  const chains = new Map<string, Promise<void>>()
  let sender: PushSender | null = null
  let credential: FoundCredential | null = null
  let closed = false
  let restoreQuota = () => {}

  const ready = (async () => {
    try {
      credential = await findCredential({ push: ctx.config.push, env: ctx.env, home: ctx.home, httpAgent: options.httpAgent })
    } catch (err) {
      const msg = err instanceof CredentialError ? err.message : `push credentials: ${(err as Error).message}`
      ctx.log.error(`${msg}; push notifications are only logged until this is fixed`)
      return
    }
    if (!credential) {
      ctx.log.info('no push credentials found: notifications are only logged (see `bridge push status`)')
      return
    }
    if (closed) return
    if (credential.type === 'authorized_user') restoreQuota = useQuotaProject(credential.projectId)
    sender = createFcmSender({ credential: credential.credential, projectId: credential.projectId, httpAgent: options.httpAgent, backoffMs: options.backoffMs })
    ctx.log.info(`push via FCM: ${describeCredential(credential)}`)
  })()

  /** Starting states are recorded, not alerted (spec 1 §3: no replay at watcher start). */
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

  const tokens = () => [...new Set(ctx.devices.list().map((d) => d.push_token).filter(Boolean))]

  const sendOne = async (message: Message, token: string): Promise<SendResult> => {
    const r = await sender!.send(message)
    if (!r.ok) {
      if (r.dead) {
        ctx.log.info(`push token of a device is no longer valid (${r.code}); cleared`)
        await ctx.devices.clearPushToken(token).catch(() => {})
      } else ctx.log.warn(`push send failed: ${r.code}: ${r.message}`)
    }
    return r
  }

  const fanoutAlert = async (alert: Alert): Promise<FanoutResult> => {
    await ready
    const list = tokens()
    if (!sender) {
      ctx.log.info(`push (log only): ${alert.status} ${alert.data.agent}: ${alert.title} — ${alert.body} [${list.length} device(s)]`)
      return { sent: 0, total: list.length }
    }
    const results = await Promise.all(
      list.map(async (token) => {
        const [os, app] = alertMessages(token, alert, channels)
        // The OS-drawn message first, so the app's richer one replaces it; counted on the first.
        const r = await sendOne(os, token)
        if (r.ok || !r.dead) await sendOne(app, token)
        return r.ok
      }),
    )
    return { sent: results.filter(Boolean).length, total: list.length }
  }

  const fanoutDismiss = async (pane: string) => {
    await ready
    const list = tokens()
    if (!sender) ctx.log.info(`push (log only): dismiss ${pane} [${list.length} device(s)]`)
    else await Promise.all(list.map((token) => sendOne(dismissMessage(token, ctx.config.server_id, pane), token)))
    ctx.bus.publish('bridge', 'notification_cleared', { pane, server_id: ctx.config.server_id })
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
    const { sent, total } = await fanoutAlert(alert)
    ctx.bus.publish('bridge', 'push_sent', { agent: pane, status, title: alert.title, seq: seq ?? 0, sent, total, server_id: ctx.config.server_id })
  }

  const run = (pane: string, actions: Action[]) => {
    for (const a of actions) {
      const job = a.kind === 'alert' ? () => alertFor(pane, a.status) : () => fanoutDismiss(pane)
      const next = (chains.get(pane) ?? Promise.resolve())
        .then(job)
        .catch((err) => ctx.log.warn(`push ${a.kind} for ${pane} failed: ${(err as Error).message}`))
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
    ready,
    started: Promise.all([ready, baselined]).then(() => {}),
    get credential() {
      return credential
    },
    channels,
    fanoutAlert,
    handle,
    async idle() {
      await pending
      while (chains.size) await Promise.all([...chains.values()])
    },
    async close() {
      closed = true
      await ready
      await Promise.race([Promise.all([...chains.values()]), new Promise((r) => setTimeout(r, 2000).unref())])
      await sender?.close().catch(() => {})
      restoreQuota()
    },
  }
}

function resolveChannels(ctx: PluginContext, options: PushOptions): AndroidChannels {
  let fromFile: any = null
  try {
    fromFile = readJsonFile<any>(ctx.config.config_path, 'config file')?.push?.android_channels
  } catch {
    // config.json was validated by the core at start; a later edit does not stop push.
  }
  const pick = (k: keyof AndroidChannels) => {
    const v = options.android_channels?.[k] ?? fromFile?.[k]
    return typeof v === 'string' && v.trim() ? v.trim() : DEFAULT_ANDROID_CHANNELS[k]
  }
  return { blocked: pick('blocked'), done: pick('done') }
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
