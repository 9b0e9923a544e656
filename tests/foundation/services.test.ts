// Declared services (core/services.ts): the loader sets up providers before their users whatever
// the configured order, refuses a missing or doubled service in one line before any setup runs,
// and a plugin reads only the services it declared.
import { describe, expect, it } from 'vitest'
import { startBridge } from '../harness/bridge.ts'
import { defineBridgePlugin, type PluginContext } from '../../core/plugin.ts'
import { orderByServices, type Services } from '../../core/services.ts'
import snapshot from '../../plugins/snapshot/index.ts'
import events from '../../plugins/events/index.ts'
import ports from '../../plugins/ports/index.ts'

describe('declared services', () => {
  it('a used service nobody provides stops the start in one line, before any setup', async () => {
    let setUp = false
    const early = defineBridgePlugin({ name: 'early', setup: () => void (setUp = true) })
    await expect(startBridge({ user: { plugins: [early, events] } })).rejects.toThrow(/^plugin events uses service liveSnapshot, which no loaded plugin provides$/)
    expect(setUp).toBe(false)
  })

  it('a service provided twice stops the start, naming both plugins (and the core for its own)', async () => {
    const again = defineBridgePlugin({ name: 'ports-again', setup: () => ({ scan: async () => [] }), provides: { portScanner: (s) => s } })
    await expect(startBridge({ user: { plugins: [ports, again] } })).rejects.toThrow(/^service portScanner is provided by both plugin ports and plugin ports-again$/)
    const channels = defineBridgePlugin({ name: 'my-channels', setup: () => ({}), provides: { notifyChannels: (s) => s as Services['notifyChannels'] } })
    await expect(startBridge({ user: { plugins: [channels] } })).rejects.toThrow(/^service notifyChannels is provided by both the core and plugin my-channels$/)
  })

  it('a user listed before its provider is set up after it and gets the provider’s object', async () => {
    let seen: unknown
    const reader = defineBridgePlugin({ name: 'reader', uses: ['liveSnapshot'], setup: (ctx: PluginContext) => void (seen = ctx.services.liveSnapshot) })
    const b = await startBridge({ user: { plugins: [reader, snapshot] } })
    try {
      expect(seen).toBe(b.bridge.state(snapshot)!.live)
    } finally {
      await b.close()
    }
  })

  it('reading a service not declared in uses is an error naming the plugin and the service', async () => {
    let err: unknown
    const sneaky = defineBridgePlugin({
      name: 'sneaky',
      setup: (ctx: PluginContext) => {
        try {
          void ctx.services.portScanner
        } catch (e) {
          err = e
        }
      },
    })
    const b = await startBridge({ user: { plugins: [ports, sneaky] } })
    await b.close()
    expect((err as Error)?.message).toBe('plugin sneaky reads service portScanner without declaring it in uses')
  })

  it('plugins that wait on each other are refused; otherwise the configured order stands', () => {
    const p = (name: string, provides: string[], uses: string[]) => ({ name, provides: Object.fromEntries(provides.map((s) => [s, () => 0])), uses })
    expect(orderByServices([p('a', [], ['x']), p('b', [], []), p('c', ['x'], [])], []).map((x) => x.name)).toEqual(['b', 'c', 'a'])
    expect(() => orderByServices([p('a', ['x'], ['y']), p('b', ['y'], ['x'])], [])).toThrow("plugins a, b wait on each other's services")
  })
})
