import userConfig from '../../bridge.config.ts'
import events from '../../plugins/events/index.ts'
import timeline from '../../plugins/timeline/index.ts'
import type { BridgeUserConfig } from '../../core/plugin.ts'
import type { Frame, Frames } from './ws-client.ts'
import type { Sim } from '../harness/sim.ts'

/** The shipped plugin list with options for the events and timeline plugins. */
export function withOptions(opts: { events?: object; timeline?: object }): BridgeUserConfig {
  return {
    ...userConfig,
    plugins: userConfig.plugins.map((p) => {
      if (p === events && opts.events) return [events, opts.events]
      if (p === timeline && opts.timeline) return [timeline, opts.timeline]
      return p
    }),
  }
}

export const isStatus = (pane: string, status?: string) => (f: Frame) =>
  f.source === 'multiplexer' && f.type === 'pane_agent_status_changed' && f.payload.pane_id === pane && (!status || f.payload.agent_status === status)

export const statusesOf = (frames: Frame[], pane: string, from = 0) =>
  frames
    .slice(from)
    .filter(isStatus(pane))
    .map((f) => f.payload.agent_status)

/** A plain shell pane in a new workspace; returns its ids. */
export async function newPane(sim: Sim, session = 'default'): Promise<{ pane: string; workspace: string; tab: string }> {
  const r = await sim.request('workspace.create', {}, session)
  return { pane: r.root_pane.pane_id, workspace: r.workspace.workspace_id, tab: r.tab.tab_id }
}

/** Drives the pane's agent status through herdr's own reporting path (custom:sim source). */
export function setStatus(sim: Sim, pane: string, state: string, extra: object = {}, session = 'default') {
  return sim.request('sim.set_status', { pane_id: pane, state, agent: 'sim-agent', ...extra }, session)
}

/** Delta frames of a client must carry seq baseline+1, +2, … with no gap and no repeat. */
export function assertContiguous(c: Frames): { baseline: number; last: number } {
  const snap = c.frames[0]
  if (snap?.type !== 'snapshot') throw new Error(`first frame is ${JSON.stringify(snap).slice(0, 200)}`)
  let expect = snap.seq + 1
  for (const f of c.frames.slice(1)) {
    if (f.type === 'heartbeat') continue
    if (f.seq !== expect) throw new Error(`seq ${f.seq} where ${expect} was due (baseline ${snap.seq})`)
    expect++
  }
  return { baseline: snap.seq, last: expect - 1 }
}
