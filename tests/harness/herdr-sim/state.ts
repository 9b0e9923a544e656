// The topology of one herdr session: workspaces → tabs → panes (each with a real terminal), focus,
// and the lifecycle events every mutation publishes, in herdr's order (protocol doc 4.3).
import fs from 'node:fs'
import path from 'node:path'
import { EventHub } from './events.ts'
import { ApiError } from './errors.ts'
import { newTerminalId, paneId, tabId, workspaceId } from './ids.ts'
import { leaf, panesInOrder, place, removeLeaf, splitAt, type Direction, type LayoutNode, type Rect } from './layout.ts'
import { PaneTerminal } from './terminal.ts'
import type { GitProvenance } from './worktree.ts'

export type AgentState = 'idle' | 'working' | 'blocked' | 'unknown'
export type AgentStatus = AgentState | 'done'

export interface AgentSessionRef {
  source: string
  agent: string
  kind: 'id' | 'path'
  value: string
}

export interface AgentLaunch {
  kind: string
  startedAt: number
  deadline: number
}

export class Pane {
  readonly terminalId = newTerminalId()
  label?: string
  // Agent facts live on herdr's terminal; a pane has exactly one terminal here.
  agentLabel?: string
  agentSource?: string
  state: AgentState = 'unknown'
  seen = true
  stateChangeSeq = 0
  agentSession?: AgentSessionRef
  agentName?: string
  launch?: AgentLaunch
  interactiveReady = false
  /** Bumped whenever the occupant leaves or is replaced; waits end with agent_not_running. */
  occupantEpoch = 0
  blockCategory?: string
  title?: string
  displayAgent?: string
  stateLabels?: Record<string, string>
  revision = 0
  terminalTitle?: string
  /** Set when the simulator removed the pane itself, so the process exit is not a pane_exited. */
  removed = false
  /** Terminal size is locked by an attached controller (`terminal session control`). */
  sizeLocked = false

  constructor(
    readonly num: number,
    public ws: Workspace,
    public tab: Tab,
    readonly cwd: string,
    readonly terminal: PaneTerminal,
  ) {}

  get id(): string {
    return paneId(this.ws.id, this.num)
  }
}

export class Tab {
  label?: string
  root!: LayoutNode<Pane>
  focused!: Pane

  constructor(
    readonly num: number,
    readonly ws: Workspace,
  ) {}

  get id(): string {
    return tabId(this.ws.id, this.num)
  }

  get panes(): Pane[] {
    return panesInOrder(this.root)
  }
}

export class Workspace {
  readonly id: string
  label?: string
  tabs: Tab[] = []
  activeTab!: Tab
  nextTabNum = 1
  nextPaneNum = 1
  worktree?: GitProvenance

  constructor(
    readonly num: number,
    public cwd: string,
  ) {
    this.id = workspaceId(num)
  }

  get panes(): Pane[] {
    return this.tabs.flatMap((t) => t.panes)
  }
}

export interface SessionConfig {
  name: string
  socketPath: string
  testMode: boolean
  /** Directory put first on every pane's PATH; holds the `claude`/`pi` shims. */
  shimDir: string
  herdrBin: string
  defaultCwd: string
  area: { width: number; height: number }
}

export interface PaneSpawn {
  cwd?: string
  env?: Record<string, string>
}

export class SessionState {
  workspaces: Workspace[] = []
  activeWs?: Workspace
  nextWsNum = 1
  /** herdr's global `next_agent_state_change_seq` (protocol doc 8.3). */
  stateSeq = 0
  readonly hub = new EventHub()
  /** Whether the (imaginary) outer terminal has focus; false makes completions land as `done`. */
  clientFocused = true
  /** Events still to be swallowed (`sim.drop_events`): herdr losing events; `type` null is any. */
  dropEvents: { count: number; type: string | null } = { count: 0, type: null }
  private lastFocusPair = ''
  /** Hooks other modules attach to (agent bookkeeping on exit, stream teardown). */
  readonly paneExitHooks: Array<(pane: Pane) => void> = []
  readonly paneRemovedHooks: Array<(pane: Pane) => void> = []
  readonly paneTitleHooks: Array<(pane: Pane) => void> = []

  constructor(readonly config: SessionConfig) {}

  get area(): Rect {
    return { x: 0, y: 0, width: this.config.area.width, height: this.config.area.height }
  }

  allPanes(): Pane[] {
    return this.workspaces.flatMap((w) => w.panes)
  }

  allTabs(): Tab[] {
    return this.workspaces.flatMap((w) => w.tabs)
  }

  focusedPane(): Pane | undefined {
    return this.activeWs?.activeTab.focused
  }

  /** A pane is "looked at" when it is in the active tab of the active workspace. */
  isVisible(pane: Pane): boolean {
    return this.clientFocused && this.activeWs === pane.ws && pane.ws.activeTab === pane.tab
  }

  isFocused(pane: Pane): boolean {
    return this.activeWs === pane.ws && pane.ws.activeTab === pane.tab && pane.tab.focused === pane
  }

  // --- creation -------------------------------------------------------------------------

  createWorkspace(opts: PaneSpawn & { label?: string; focus?: boolean; worktree?: GitProvenance }): {
    ws: Workspace
    tab: Tab
    pane: Pane
  } {
    const cwd = opts.cwd ?? this.config.defaultCwd
    const ws = new Workspace(this.nextWsNum++, cwd)
    ws.label = opts.label || undefined
    ws.worktree = opts.worktree
    const tab = this.newTab(ws)
    const pane = this.spawnPane(ws, tab, { cwd, env: opts.env })
    tab.root = leaf(pane)
    tab.focused = pane
    ws.activeTab = tab
    this.workspaces.push(ws)
    // The first workspace always becomes active, whatever `focus` says.
    if (!this.activeWs || opts.focus) this.activeWs = ws
    this.relayout(tab)
    this.publish('workspace_created', { workspace: this.info.workspace(ws) })
    this.publish('tab_created', { tab: this.info.tab(tab) })
    this.publish('pane_created', { pane: this.info.pane(pane) })
    this.publish('layout_updated', { layout: this.info.layout(tab) })
    return { ws, tab, pane }
  }

  createTab(ws: Workspace, opts: PaneSpawn & { label?: string; focus?: boolean }): { tab: Tab; pane: Pane } {
    const tab = this.newTab(ws)
    tab.label = opts.label || undefined
    const pane = this.spawnPane(ws, tab, { cwd: opts.cwd ?? ws.cwd, env: opts.env })
    tab.root = leaf(pane)
    tab.focused = pane
    if (opts.focus) {
      ws.activeTab = tab
      this.activeWs = ws
    }
    this.relayout(tab)
    this.publish('tab_created', { tab: this.info.tab(tab) })
    this.publish('pane_created', { pane: this.info.pane(pane) })
    this.publish('layout_updated', { layout: this.info.layout(tab) })
    return { tab, pane }
  }

  split(target: Pane, direction: Direction, opts: PaneSpawn & { ratio?: number; focus?: boolean }): Pane {
    const tab = target.tab
    const pane = this.spawnPane(target.ws, tab, { cwd: opts.cwd ?? target.ws.cwd, env: opts.env })
    const ratio = opts.ratio !== undefined && opts.ratio > 0 && opts.ratio < 1 ? opts.ratio : 0.5
    tab.root = splitAt(tab.root, target, pane, direction, ratio)
    if (opts.focus) {
      tab.focused = pane
      target.ws.activeTab = tab
      this.activeWs = target.ws
    }
    this.relayout(tab)
    this.publish('pane_created', { pane: this.info.pane(pane) })
    this.publish('layout_updated', { layout: this.info.layout(tab) })
    return pane
  }

  private newTab(ws: Workspace): Tab {
    const tab = new Tab(ws.nextTabNum++, ws)
    ws.tabs.push(tab)
    return tab
  }

  private spawnPane(ws: Workspace, tab: Tab, opts: PaneSpawn): Pane {
    const num = ws.nextPaneNum++
    const cwd = opts.cwd && fs.existsSync(opts.cwd) ? opts.cwd : this.config.defaultCwd
    const id = paneId(ws.id, num)
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('HERDR_')) env[k] = v
    // A plain, deterministic prompt; callers may override it through `env`.
    env.PS1 = '$ '
    env.PROMPT_COMMAND = ''
    env.HISTFILE = '/dev/null'
    Object.assign(env, opts.env ?? {})
    // herdr-managed variables override whatever the caller passed.
    Object.assign(env, {
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
      HERDR_SOCKET_PATH: this.config.socketPath,
      HERDR_BIN_PATH: this.config.herdrBin,
      HERDR_ENV: '1',
      HERDR_WORKSPACE_ID: ws.id,
      HERDR_TAB_ID: tab.id,
      HERDR_PANE_ID: id,
      PATH: `${this.config.shimDir}${path.delimiter}${env.PATH ?? '/usr/bin:/bin'}`,
    })
    delete env.CODEX_THREAD_ID
    const shell = fs.existsSync('/bin/bash') ? '/bin/bash' : 'bash'
    const terminal = new PaneTerminal({ file: shell, args: ['--noprofile', '--norc'], cwd, env, cols: this.area.width, rows: this.area.height })
    const pane = new Pane(num, ws, tab, cwd, terminal)
    terminal.onExit(() => this.handleExit(pane))
    terminal.onTitle((title) => {
      const stripped = stripSpinner(title)
      const before = stripSpinner(pane.terminalTitle ?? '')
      pane.terminalTitle = title || undefined
      // `revision` counts presentation changes: it moves with the stripped title only.
      if (stripped !== before && !pane.removed) {
        pane.revision += 1
        this.publish('pane_updated', { pane: this.info.pane(pane) })
      }
      for (const h of this.paneTitleHooks) h(pane)
    })
    return pane
  }

  // --- removal ----------------------------------------------------------------------------

  closePane(pane: Pane): void {
    const { tab, ws } = pane
    const wsInfo = this.info.workspace(ws)
    this.detachPane(pane)
    this.publish('pane_closed', { pane_id: pane.id, workspace_id: ws.id })
    if (tab.panes.length > 0) {
      this.publish('layout_updated', { layout: this.info.layout(tab) })
    } else if (ws.tabs.length > 0) {
      // herdr publishes no tab_closed here, although the tab is gone.
    } else {
      this.publish('workspace_closed', { workspace_id: ws.id, workspace: { ...wsInfo, pane_count: 0, tab_count: 0 } })
    }
    pane.terminal.kill()
  }

  closeTab(tab: Tab): void {
    const ws = tab.ws
    const wsInfo = this.info.workspace(ws)
    const panes = tab.panes
    for (const p of panes) p.removed = true
    this.removeTab(tab)
    this.publish('tab_closed', { tab_id: tab.id, workspace_id: ws.id })
    if (ws.tabs.length === 0) {
      this.removeWorkspace(ws)
      this.publish('workspace_closed', { workspace_id: ws.id, workspace: wsInfo })
    }
    for (const p of panes) this.finishRemoval(p)
  }

  closeWorkspace(ws: Workspace): void {
    const wsInfo = this.info.workspace(ws)
    const panes = ws.panes
    for (const p of panes) p.removed = true
    this.removeWorkspace(ws)
    this.publish('workspace_closed', { workspace_id: ws.id, workspace: wsInfo })
    for (const p of panes) this.finishRemoval(p)
  }

  /** Kills every pane without events: the server is going away. */
  destroyAll(): void {
    for (const p of this.allPanes()) {
      p.removed = true
      this.finishRemoval(p)
    }
    this.workspaces = []
    this.activeWs = undefined
  }

  private finishRemoval(pane: Pane): void {
    pane.terminal.kill()
    for (const h of this.paneRemovedHooks) h(pane)
  }

  /** Takes a pane out of its tab, dropping empty tabs and workspaces without events. */
  private detachPane(pane: Pane): void {
    pane.removed = true
    const { tab, ws } = pane
    const order = tab.panes
    const idx = order.indexOf(pane)
    const root = removeLeaf(tab.root, pane)
    if (root) {
      tab.root = root
      if (tab.focused === pane) tab.focused = order[idx - 1] ?? tab.panes[0]
      this.relayout(tab)
    } else {
      this.removeTab(tab)
      if (ws.tabs.length === 0) this.removeWorkspace(ws)
    }
    for (const h of this.paneRemovedHooks) h(pane)
  }

  private removeTab(tab: Tab): void {
    const ws = tab.ws
    const idx = ws.tabs.indexOf(tab)
    if (idx < 0) return
    ws.tabs.splice(idx, 1)
    if (ws.activeTab === tab && ws.tabs.length > 0) ws.activeTab = ws.tabs[Math.max(0, idx - 1)]
  }

  private removeWorkspace(ws: Workspace): void {
    const idx = this.workspaces.indexOf(ws)
    if (idx < 0) return
    this.workspaces.splice(idx, 1)
    if (this.activeWs === ws) this.activeWs = this.workspaces[Math.min(idx, this.workspaces.length - 1)]
  }

  private handleExit(pane: Pane): void {
    if (pane.removed) return
    const { tab, ws } = pane
    this.publish('pane_exited', { pane_id: pane.id, workspace_id: ws.id })
    for (const h of this.paneExitHooks) h(pane)
    this.detachPane(pane)
    if (tab.panes.length > 0 && ws.tabs.includes(tab)) this.publish('layout_updated', { layout: this.info.layout(tab) })
    this.syncFocus()
  }

  // --- focus ------------------------------------------------------------------------------

  focusPane(pane: Pane): void {
    pane.tab.focused = pane
    pane.ws.activeTab = pane.tab
    this.activeWs = pane.ws
    this.markTabSeen(pane.tab)
  }

  focusTab(tab: Tab): void {
    tab.ws.activeTab = tab
    this.activeWs = tab.ws
    this.markTabSeen(tab)
  }

  focusWorkspace(ws: Workspace): void {
    this.activeWs = ws
    this.markTabSeen(ws.activeTab)
  }

  // Marking seen flips done→idle without publishing anything; only per-pane polls notice.
  private markTabSeen(tab: Tab): void {
    for (const p of tab.panes) p.seen = true
  }

  /**
   * herdr's main loop emits the focus trio after a request when the (workspace, pane) pair
   * changed; call this after every mutation.
   */
  syncFocus(): void {
    const pane = this.focusedPane()
    const pair = pane ? `${pane.ws.id}|${pane.id}` : ''
    if (pair === this.lastFocusPair) return
    this.lastFocusPair = pair
    if (!pane) return
    this.publish('workspace_focused', { workspace_id: pane.ws.id })
    this.publish('tab_focused', { tab_id: pane.tab.id, workspace_id: pane.ws.id })
    this.publish('pane_focused', { pane_id: pane.id, workspace_id: pane.ws.id })
  }

  // --- layout -----------------------------------------------------------------------------

  relayout(tab: Tab): void {
    const placed = place(tab.root, this.area)
    for (const { pane, rect } of placed.panes) {
      if (!pane.sizeLocked) pane.terminal.resize(Math.max(rect.width, 2), Math.max(rect.height, 2))
    }
  }

  publish(type: string, data: Record<string, unknown>): void {
    if (this.dropEvents.count > 0 && (this.dropEvents.type === null || this.dropEvents.type === type)) {
      this.dropEvents.count -= 1
      return
    }
    this.hub.publish(type, data)
  }

  // Filled in by info.ts to keep presentation apart from mutation.
  info!: InfoBuilders
}

export interface InfoBuilders {
  workspace(ws: Workspace): Record<string, unknown>
  tab(tab: Tab): Record<string, unknown>
  pane(pane: Pane): Record<string, unknown>
  agent(pane: Pane): Record<string, unknown>
  layout(tab: Tab): Record<string, unknown>
}

// Agents put a spinner glyph in front of their title while busy; herdr strips one.
export function stripSpinner(title: string): string {
  return title.replace(/^[\u2800-\u28ff✳✻✽✶✢·*]\s+/u, '').trim()
}

export function requireWorkspace(found: Workspace | undefined, ref: string): Workspace {
  if (!found) throw new ApiError('workspace_not_found', `workspace ${ref} not found`)
  return found
}
