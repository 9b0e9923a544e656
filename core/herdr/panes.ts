import type { Herdr, PaneInfo } from './index.ts'
import { HerdrError } from './socket.ts'
import { qualifyId } from './ids.ts'
import type { PaneProcessInfo } from '../../lib/herdr/api.ts'

/**
 * Pane operations shared by /pane/new and /agent/start: create a pane without taking the
 * operator's focus, and tell whether a pane's shell is at its interactive prompt.
 */

export interface NewPaneRequest {
  /** Client pane id to split. */
  split_from?: string
  /** Client workspace id for a new tab. */
  workspace_id?: string
  direction?: string
  cwd?: string
  label?: string
}

export interface NewPane {
  session: string
  pane: PaneInfo
  /** Ids as clients see them. */
  ids: { pane_id: string; tab_id: string; workspace_id: string }
}

/** Splits `split_from`, or opens a tab in `workspace_id` (the active workspace when neither). Never focuses. */
export async function createPane(herdr: Herdr, req: NewPaneRequest): Promise<NewPane> {
  let session: string
  let pane: PaneInfo
  if (req.split_from) {
    const ref = await herdr.resolve(req.split_from)
    session = ref.session
    const params: Record<string, unknown> = { target_pane_id: ref.id, direction: req.direction || 'down', focus: false }
    if (req.cwd) params.cwd = req.cwd
    pane = (await herdr.call<{ pane: PaneInfo }>(session, 'pane.split', params)).pane
    // A split has no label of its own; the pane label is the closest thing.
    if (req.label) await herdr.call(session, 'pane.rename', { pane_id: pane.pane_id, label: req.label }).catch(() => {})
  } else {
    const ref = req.workspace_id ? await herdr.resolve(req.workspace_id) : { session: 'default', id: '' }
    session = ref.session
    const params: Record<string, unknown> = { focus: false }
    if (ref.id) params.workspace_id = ref.id
    if (req.cwd) params.cwd = req.cwd
    if (req.label) params.label = req.label
    pane = (await herdr.call<{ root_pane: PaneInfo }>(session, 'tab.create', params)).root_pane
  }
  if (!pane?.pane_id) throw new HerdrError('internal_error', 'herdr did not return the new pane', session)
  return {
    session,
    pane,
    ids: { pane_id: qualifyId(session, pane.pane_id), tab_id: qualifyId(session, pane.tab_id), workspace_id: qualifyId(session, pane.workspace_id) },
  }
}

export interface ShellState {
  atPrompt: boolean
  /** What runs in the foreground when not at the prompt. */
  busyWith: string
}

/** At the prompt when the shell itself leads the terminal's foreground process group. */
export async function shellState(herdr: Herdr, session: string, paneId: string): Promise<ShellState> {
  const r = await herdr.call<{ process_info?: Partial<PaneProcessInfo> }>(session, 'pane.process_info', { pane_id: paneId })
  const info: Partial<PaneProcessInfo> = r.process_info ?? {}
  const atPrompt = typeof info.shell_pid === 'number' && info.shell_pid === info.foreground_process_group_id
  const fg = (info.foreground_processes ?? []) as { pid: number; name: string; cmdline?: string }[]
  const leader = fg.find((p) => p.pid === info.foreground_process_group_id) ?? fg[0]
  return { atPrompt, busyWith: atPrompt ? '' : leader?.cmdline || leader?.name || 'another program' }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls every 150 ms until the shell is at its prompt or `timeoutMs` passes; the last state. */
export async function waitForPrompt(herdr: Herdr, session: string, paneId: string, timeoutMs: number): Promise<ShellState> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const s = await shellState(herdr, session, paneId)
    if (s.atPrompt || Date.now() >= deadline) return s
    await sleep(Math.min(150, Math.max(0, deadline - Date.now())))
  }
}
