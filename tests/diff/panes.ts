/** Panes in the herdr simulator for the diff, branch and attachment tests. */
import type { Stack } from '../harness/stack.ts'

/** A new workspace whose shell starts in `cwd`; returns its root pane id. */
export async function shellPane(stack: Stack, cwd: string, session = 'default'): Promise<{ pane: string; workspace: string }> {
  const r = await stack.sim.request('workspace.create', { cwd, focus: false }, session)
  return { pane: r.root_pane.pane_id, workspace: r.workspace.workspace_id }
}

/** A pane that hosts an agent (reported the way an integration hook would) in `cwd`. */
export async function agentPane(stack: Stack, cwd: string, session = 'default'): Promise<{ pane: string; workspace: string }> {
  const p = await shellPane(stack, cwd, session)
  await stack.sim.request('pane.report_agent', { pane_id: p.pane, source: 'custom:test', agent: 'claude', state: 'idle' }, session)
  return p
}
