import type { PluginContext } from '../../core/plugin.ts'
import { qualifyId } from '../../core/herdr/index.ts'
import { createPortScanner, type PaneShells, type PortScanner } from '../../lib/ports/index.ts'
import type { PaneProcessInfo, SessionSnapshot } from '../../lib/herdr/api.ts'

/** Every pane's shell pid, read from herdr (`session.snapshot`, then `pane.process_info` per pane). */
async function paneShells(ctx: PluginContext): Promise<PaneShells> {
  const shells: PaneShells = new Map()
  await Promise.all(
    ctx.herdr.sessions().map(async (session) => {
      let panes: SessionSnapshot['panes'] = []
      try {
        panes = (await ctx.herdr.call<{ snapshot?: Partial<SessionSnapshot> }>(session, 'session.snapshot', {}, { timeoutMs: 5000 })).snapshot?.panes ?? []
      } catch {
        return
      }
      await Promise.all(
        panes.map(async (p) => {
          try {
            const r = await ctx.herdr.call<{ process_info?: Partial<PaneProcessInfo> }>(session, 'pane.process_info', { pane_id: p.pane_id }, { timeoutMs: 5000 })
            const pid = r.process_info?.shell_pid
            if (typeof pid === 'number') shells.set(pid, { pane: qualifyId(session, p.pane_id), agent: p.agent || undefined })
          } catch {}
        }),
      )
    }),
  )
  return shells
}

/** The bridge's one port scanner (one scan cache for /ports and /suggestions), provided as the `portScanner` service. */
export const createHostPortScanner = (ctx: PluginContext): PortScanner => createPortScanner({ paneShells: () => paneShells(ctx), now: ctx.now })
