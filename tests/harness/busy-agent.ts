import type { Sim } from './sim.ts'
import { until } from './wait.ts'

/** What `pane.report_agent` takes besides the pane: source, agent, state, session id or path. */
export type AgentReport = { source: string; agent: string; state: string } & Record<string, unknown>

/**
 * Reports an integration agent in `pane` the way its hooks would, on a pane kept busy with
 * `sleep 600`. herdr (and the simulator) releases an integration-reported agent whose pane sits at
 * the shell prompt, so the report waits until `sleep` runs in the foreground: the group changes
 * at fork, before the child has exec'd, and a loaded machine can take seconds to get there.
 */
export async function reportBusyAgent(sim: Pick<Sim, 'request'>, pane: string, report: AgentReport): Promise<void> {
  await sim.request('pane.send_text', { pane_id: pane, text: 'sleep 600\r' })
  await until(async () => {
    const info = (await sim.request('pane.process_info', { pane_id: pane })).process_info
    return info.foreground_process_group_id !== info.shell_pid && info.foreground_processes.some((p: { name: string }) => p.name === 'sleep')
  }, `sleep in ${pane}'s foreground`)
  await sim.request('pane.report_agent', { pane_id: pane, ...report })
}
