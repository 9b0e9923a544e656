import { defineBridgePlugin, type BusSubscription, type PluginContext, type PluginDef, type AnyRouteDef } from '../plugin.ts'
import type { AlertEvent, Delivery, DismissEvent } from '../../lib/notify/events.ts'
import type { ChannelStatus } from './channels.ts'
import { pluginConfig, type PluginConfigSpec } from '../plugin-config.ts'
import type { GenericSchema } from 'valibot'

/**
 * A notifier plugin: one delivery channel, registered at setup in the `notifyChannels` service.
 * Alert composition (plugins/push) calls every registered channel directly and gets one result
 * per channel. Each channel works through its own queue, so a slow or failing channel never
 * holds up another; within a channel, the messages for one pane go out in order and panes do not
 * wait for each other.
 */
export interface Notifier {
  alert(ev: AlertEvent): Promise<Delivery>
  /** Absent: the channel cannot take a notification back (ntfy). */
  dismiss?(ev: DismissEvent): Promise<Delivery>
  close?(): Promise<void>
  /** For `/admin/status` (`bridge status`, `bridge doctor`): configured or not, and where it sends or what it lacks. */
  describe?(): ChannelStatus
}

export interface NotifierPluginDef<O, N extends Notifier, C = undefined> {
  /** Plugin name (`notify-webpush`). */
  name: string
  /** Channel name in `push_sent`, logs and `bridge notify test --channel`. */
  channel: string
  /**
   * It delivers to devices (browser subscriptions, push tokens) and skips the devices in an
   * alert's `muted`: each device may then turn it off for itself in the web app.
   */
  perDevice?: boolean
  /**
   * The channel's own settings: its section of config.json, its valibot schema and the env vars
   * that win over the file (core/plugin-config.ts). Checked at start; handed to `create`.
   */
  config?: PluginConfigSpec<GenericSchema<unknown, C>>
  create(ctx: PluginContext, options: O, settings: C): N | Promise<N>
  /** Routes of the channel; their `state` is the running channel (`state.notifier`). */
  routes?: AnyRouteDef<NotifierState<N>>[]
  subscribe?: BusSubscription<NotifierState<N>>[]
}

/** A notifier plugin's state: its notifier and the queue in front of it. */
export interface NotifierState<N extends Notifier = Notifier> {
  notifier: N
  /** Queues an alert or a dismissal behind the pane's earlier ones; resolves with the channel's result. */
  send(kind: 'alert', ev: AlertEvent): Promise<Delivery>
  send(kind: 'dismiss', ev: DismissEvent): Promise<Delivery>
  idle(): Promise<void>
  close(): Promise<void>
}

/** Jobs a channel holds at once; past this it reports the alert undelivered instead of queueing. */
const MAX_PENDING = 500

export function defineNotifierPlugin<O = Record<string, never>, N extends Notifier = Notifier, C = undefined>(
  def: NotifierPluginDef<O, N, C>,
): PluginDef<O, NotifierState<N> & { remove(): void }> {
  return defineBridgePlugin<O, NotifierState<N> & { remove(): void }>({
    name: def.name,
    uses: ['notifyChannels'],
    routes: def.routes as AnyRouteDef<NotifierState<N> & { remove(): void }>[] | undefined,
    subscribe: def.subscribe as BusSubscription<NotifierState<N> & { remove(): void }>[] | undefined,
    async setup(ctx, options) {
      const settings = (def.config ? pluginConfig(ctx, def.config) : undefined) as C
      const notifier = await def.create(ctx, (options ?? {}) as O, settings)
      const runner = createRunner(ctx, def.channel, notifier)
      const remove = ctx.services.notifyChannels.add({
        name: def.channel,
        plugin: def.name,
        perDevice: def.perDevice === true,
        status: () => notifier.describe?.() ?? { configured: true, detail: 'loaded' },
        alert: (ev) => runner.send('alert', ev),
        dismiss: (ev) => runner.send('dismiss', ev),
      })
      return { ...runner, remove }
    },
    async dispose(state) {
      state.remove()
      await state.close()
    },
  })
}

function createRunner<N extends Notifier>(ctx: PluginContext, channel: string, notifier: N): NotifierState<N> {
  const chains = new Map<string, Promise<unknown>>()
  let pending = 0
  let warnedFull = false
  let closed = false

  const run = async (kind: 'alert' | 'dismiss', ev: AlertEvent | DismissEvent): Promise<Delivery> => {
    try {
      if (kind === 'alert') return await notifier.alert(ev as AlertEvent)
      if (notifier.dismiss) return await notifier.dismiss(ev as DismissEvent)
      return { sent: 0, total: 0, enabled: true, note: 'this channel cannot take a notification back' }
    } catch (err) {
      ctx.log.warn(`${channel}: ${(err as Error)?.message ?? err}`)
      return { sent: 0, total: 0, enabled: true, note: String((err as Error)?.message ?? err) }
    }
  }

  const send = (kind: 'alert' | 'dismiss', ev: AlertEvent | DismissEvent): Promise<Delivery> => {
    if (closed) return Promise.resolve({ sent: 0, total: 0, enabled: true, note: 'shutting down' })
    if (pending >= MAX_PENDING) {
      if (!warnedFull) ctx.log.warn(`${channel}: ${MAX_PENDING} notifications are waiting; newer ones are dropped until it catches up`)
      warnedFull = true
      return Promise.resolve({ sent: 0, total: 0, enabled: true, note: 'channel backed up' })
    }
    pending++
    const tag = ev.tag
    const next = (chains.get(tag) ?? Promise.resolve()).then(() => run(kind, ev))
    chains.set(tag, next)
    void next.finally(() => {
      pending--
      if (pending < MAX_PENDING / 2) warnedFull = false
      if (chains.get(tag) === next) chains.delete(tag)
    })
    return next
  }

  return {
    notifier,
    send: send as NotifierState<N>['send'],
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
