import type { BusEvent } from '../../core/bus.ts'
import { defineBridgePlugin, type BusSubscription, type PluginContext, type PluginDef, type RouteDef } from '../../core/plugin.ts'
import { fail } from '../../core/respond.ts'
import { ALERT_EVENT, DELIVERED_EVENT, DISMISS_EVENT, forChannel, type AlertEvent, type DeliveredEvent, type Delivery, type DismissEvent } from './events.ts'
import { notifyChannels } from './channels.ts'

/**
 * A notifier plugin: one delivery channel subscribed, through its manifest, to the alerts and
 * dismissals composition publishes. Each channel is its own bus subscriber and works through
 * its own queue, so a slow or failing channel never holds up another; within a channel, the
 * messages for one pane go out in order and panes do not wait for each other.
 */
export interface Notifier {
  alert(ev: AlertEvent): Promise<Delivery>
  /** Absent: the channel cannot take a notification back (ntfy). */
  dismiss?(ev: DismissEvent): Promise<Delivery>
  close?(): Promise<void>
}

export interface NotifierPluginDef<O, N extends Notifier> {
  /** Plugin name (`notify-webpush`). */
  name: string
  /** Channel name in `push_sent`, logs and `bridge notify test --channel`. */
  channel: string
  create(ctx: PluginContext, options: O): N | Promise<N>
  routes?: RouteDef[]
  subscribe?: BusSubscription[]
}

interface Runner<N extends Notifier> {
  notifier: N
  handle(ev: BusEvent): void
  idle(): Promise<void>
  close(): Promise<void>
}

/** Jobs a channel holds at once; past this it reports the alert undelivered instead of queueing. */
const MAX_PENDING = 500

const keyOf = (channel: string) => `notify.${channel}`

/** The running notifier of `channel`, for its own routes. */
export function notifierOf<N extends Notifier>(ctx: PluginContext, channel: string): N {
  const r = ctx.services.get(keyOf(channel)) as Runner<N> | undefined
  if (!r) fail(503, `${channel} notifications are not running`)
  return r.notifier
}

/** Waits until the channel has handled everything queued (tests, shutdown). */
export function notifierIdle(ctx: PluginContext, channel: string): Promise<void> {
  return (ctx.services.get(keyOf(channel)) as Runner<Notifier> | undefined)?.idle() ?? Promise.resolve()
}

export function defineNotifierPlugin<O = Record<string, never>, N extends Notifier = Notifier>(def: NotifierPluginDef<O, N>): PluginDef<O> {
  const runner = (ctx: PluginContext) => ctx.services.get(keyOf(def.channel)) as Runner<N> | undefined
  const handler = (ev: BusEvent, ctx: PluginContext) => runner(ctx)?.handle(ev)
  return defineBridgePlugin<O>({
    name: def.name,
    routes: def.routes,
    subscribe: [{ source: 'bridge', type: ALERT_EVENT, handler }, { source: 'bridge', type: DISMISS_EVENT, handler }, ...(def.subscribe ?? [])],
    async setup(ctx, options) {
      const notifier = await def.create(ctx, (options ?? {}) as O)
      const r = createRunner(ctx, def.channel, notifier)
      ctx.services.set(keyOf(def.channel), r)
      notifyChannels(ctx).add(def.channel)
      return async () => {
        notifyChannels(ctx).delete(def.channel)
        ctx.services.delete(keyOf(def.channel))
        await r.close()
      }
    },
  })
}

function createRunner<N extends Notifier>(ctx: PluginContext, channel: string, notifier: N): Runner<N> {
  const chains = new Map<string, Promise<void>>()
  let pending = 0
  let warnedFull = false
  let closed = false

  const report = (id: string, d: Delivery) => ctx.bus.publish<DeliveredEvent>('bridge', DELIVERED_EVENT, { id, channel, ...d })

  const run = async (ev: BusEvent): Promise<Delivery> => {
    try {
      if (ev.type === ALERT_EVENT) return await notifier.alert(ev.payload as AlertEvent)
      if (notifier.dismiss) return await notifier.dismiss(ev.payload as DismissEvent)
      return { sent: 0, total: 0, enabled: true, note: 'this channel cannot take a notification back' }
    } catch (err) {
      ctx.log.warn(`${channel}: ${(err as Error)?.message ?? err}`)
      return { sent: 0, total: 0, enabled: true, note: String((err as Error)?.message ?? err) }
    }
  }

  return {
    notifier,
    handle(ev) {
      const p = ev.payload as AlertEvent | DismissEvent
      if (closed || !p?.id || !forChannel(p as AlertEvent, channel)) return
      if (pending >= MAX_PENDING) {
        if (!warnedFull) ctx.log.warn(`${channel}: ${MAX_PENDING} notifications are waiting; newer ones are dropped until it catches up`)
        warnedFull = true
        return void report(p.id, { sent: 0, total: 0, enabled: true, note: 'channel backed up' })
      }
      pending++
      const tag = p.tag
      const next = (chains.get(tag) ?? Promise.resolve()).then(async () => void report(p.id, await run(ev)))
      chains.set(tag, next)
      void next.finally(() => {
        pending--
        if (pending < MAX_PENDING / 2) warnedFull = false
        if (chains.get(tag) === next) chains.delete(tag)
      })
    },
    async idle() {
      while (chains.size) await Promise.all([...chains.values()])
    },
    async close() {
      closed = true
      await Promise.race([Promise.all([...chains.values()]), new Promise((r) => setTimeout(r, 2000).unref())])
      await notifier.close?.()
    },
  }
}
