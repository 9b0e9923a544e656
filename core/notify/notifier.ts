import type { BusEvent } from '../../core/bus.ts'
import { defineBridgePlugin, type BusSubscription, type PluginContext, type PluginDef, type RouteDef } from '../../core/plugin.ts'
import { ALERT_EVENT, DELIVERED_EVENT, DISMISS_EVENT, forChannel, type AlertEvent, type DeliveredEvent, type Delivery, type DismissEvent } from './events.ts'
import { addChannel, removeChannel, type ChannelStatus } from './channels.ts'

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
  /** For `/admin/status` (`bridge status`): configured or not, and where it sends or what it lacks. */
  describe?(): ChannelStatus
}

export interface NotifierPluginDef<O, N extends Notifier> {
  /** Plugin name (`notify-webpush`). */
  name: string
  /** Channel name in `push_sent`, logs and `bridge notify test --channel`. */
  channel: string
  create(ctx: PluginContext, options: O): N | Promise<N>
  /** Routes of the channel; their `state` is the running channel (`state.notifier`). */
  routes?: RouteDef<any, any, NotifierState<N>>[]
  subscribe?: BusSubscription<NotifierState<N>>[]
}

/** A notifier plugin's state: its notifier and the queue in front of it. */
export interface NotifierState<N extends Notifier = Notifier> {
  notifier: N
  handle(ev: BusEvent): void
  idle(): Promise<void>
  close(): Promise<void>
}

/** Jobs a channel holds at once; past this it reports the alert undelivered instead of queueing. */
const MAX_PENDING = 500

export function defineNotifierPlugin<O = Record<string, never>, N extends Notifier = Notifier>(def: NotifierPluginDef<O, N>): PluginDef<O, NotifierState<N>> {
  return defineBridgePlugin<O, NotifierState<N>>({
    name: def.name,
    routes: def.routes,
    subscribe: [
      // Its own queue: a channel that falls behind skips its oldest messages, never anyone else's.
      { source: 'bridge', type: [ALERT_EVENT, DISMISS_EVENT], limit: 10_000, lag: 'drop-oldest', handler: (ev, { state }) => state.handle(ev) },
      ...(def.subscribe ?? []),
    ],
    async setup(ctx, options) {
      const notifier = await def.create(ctx, (options ?? {}) as O)
      addChannel(ctx.bus, def.channel, () => notifier.describe?.() ?? { configured: true, detail: 'loaded' })
      return createRunner(ctx, def.channel, notifier)
    },
    async dispose(state, ctx) {
      removeChannel(ctx.bus, def.channel)
      await state.close()
    },
  })
}

function createRunner<N extends Notifier>(ctx: PluginContext, channel: string, notifier: N): NotifierState<N> {
  const chains = new Map<string, Promise<void>>()
  let pending = 0
  let warnedFull = false
  let closed = false

  const report = (id: string, d: Delivery) => ctx.bus.publish<DeliveredEvent>('bridge', DELIVERED_EVENT, { id, channel, ...d }, { internal: true })

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
