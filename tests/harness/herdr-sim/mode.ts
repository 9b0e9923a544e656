// Which herdr the simulator plays. HERDR_SIM_MODE=0.9 (read by the simulator, the fake CLI and the
// harness alike, so one variable switches a whole test run) plays herdr 0.9.x; anything else plays
// 0.8.0. What differs (herdr's CHANGELOG; docs/herdr-versions.md):
//  - 0.9.0 #1270: a new lifecycle subscription starts with live events, no replay of the ring;
//  - 0.8.2 #2788: `agent.prompt` to an agent at an approval or question dialog fails with
//    `agent_blocked`, typing nothing;
//  - 0.9.0 #2874: `workspace.close` takes `close_group`; without it a primary workspace closes
//    alone and its worktree workspaces stay open;
//  - kinds: Qwen Code (0.8.2) and Muse (0.9.0) join the list;
//  - ping and session.snapshot report 0.9.1 and protocol 22 (what third-party clients report).
export type SimMode = '0.8' | '0.9'

export interface SimProfile {
  mode: SimMode
  version: string
  protocol: number
  liveOnlySubscriptions: boolean
  agentBlocked: boolean
  closeGroup: boolean
  /** Kinds this herdr adds to the 0.8.0 list. */
  extraKinds: string[]
}

export function simMode(env: NodeJS.ProcessEnv = process.env): SimMode {
  return env.HERDR_SIM_MODE === '0.9' ? '0.9' : '0.8'
}

export function simProfile(env: NodeJS.ProcessEnv = process.env): SimProfile {
  const mode = simMode(env)
  const base: SimProfile =
    mode === '0.9'
      ? { mode, version: '0.9.1', protocol: 22, liveOnlySubscriptions: true, agentBlocked: true, closeGroup: true, extraKinds: ['qwen', 'muse'] }
      : { mode, version: '0.8.0', protocol: 20, liveOnlySubscriptions: false, agentBlocked: false, closeGroup: false, extraKinds: [] }
  // HERDR_SIM_PROTOCOL plays another protocol number (tests of the bridge's protocol notices).
  const protocol = Number(env.HERDR_SIM_PROTOCOL) || base.protocol
  const version = env.HERDR_SIM_VERSION || base.version
  return { ...base, protocol, version }
}

export const PROFILE = simProfile()
