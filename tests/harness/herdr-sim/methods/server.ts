// ping, session.snapshot, server.* — whole-session reads.
import { AGENT_KINDS } from '../agents.ts'
import { hasAgent } from '../info.ts'
import { PROFILE } from '../mode.ts'
import { ok, type MethodTable } from './types.ts'

// The herdr this simulator plays (HERDR_SIM_MODE; HERDR_SIM_PROTOCOL plays another protocol number).
export const VERSION = PROFILE.version
export const PROTOCOL = PROFILE.protocol

// Agents herdr ships bundled screen-detection manifests for. `server.agent_manifests` lists them;
// the bridge treats a listed kind as "state reporting".
const MANIFEST_AGENTS = ['claude', 'codex', 'pi', 'omp', 'amp', 'github-copilot', 'opencode', 'gemini', 'cursor', 'droid']

export const serverMethods: MethodTable = {
  ping: () => ({
    type: 'pong',
    version: VERSION,
    protocol: PROTOCOL,
    capabilities: { live_handoff: true, detached_server_daemon: true },
  }),

  'session.snapshot': (_p, { s }) => {
    const workspaces = s.workspaces
    const tabs = s.allTabs()
    const panes = s.allPanes()
    const snapshot: Record<string, unknown> = {
      version: VERSION,
      protocol: PROTOCOL,
      workspaces: workspaces.map((w) => s.info.workspace(w)),
      tabs: tabs.map((t) => s.info.tab(t)),
      panes: panes.map((p) => s.info.pane(p)),
      layouts: tabs.map((t) => s.info.layout(t)),
      agents: panes.filter(hasAgent).map((p) => s.info.agent(p)),
    }
    const focused = s.focusedPane()
    if (focused) {
      snapshot.focused_workspace_id = focused.ws.id
      snapshot.focused_tab_id = focused.tab.id
      snapshot.focused_pane_id = focused.id
    }
    return { type: 'session_snapshot', snapshot }
  },

  // herdr answers with its manifest status (ResponseResult::AgentManifestStatus).
  'server.agent_manifests': () => ({
    type: 'agent_manifest_status',
    manifests: MANIFEST_AGENTS.filter((a) => a === 'github-copilot' || AGENT_KINDS.includes(a)).map((agent) => ({
      agent,
      source: 'bundled',
      source_kind: 'bundled',
      local_override_shadowing_remote: false,
    })),
  }),

  'server.reload_agent_manifests': () => ({
    type: 'agent_manifest_reload',
    manifests: MANIFEST_AGENTS.map((agent) => ({ agent, source: 'bundled', source_kind: 'bundled', local_override_shadowing_remote: false })),
  }),

  'server.reload_config': () => ({ type: 'config_reload', status: 'applied', diagnostics: [] }),

  // Replies ok, then the server goes away (its panes die with it).
  'server.stop': (_p, ctx) => {
    setTimeout(() => ctx.stopServer({ fresh: true }), 20)
    return ok()
  },
}
