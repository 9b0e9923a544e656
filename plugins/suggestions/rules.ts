import { basename } from 'node:path'
import type { GitContext } from '../../lib/git/status.ts'
import type { HostListener } from '../../lib/ports/index.ts'

export interface Suggestion {
  kind: 'dev_server' | 'git_conflict' | 'git_dirty' | 'create_pr' | 'dev_server_local' | 'shell_idle'
  performer: 'app' | 'agent'
  label: string
  detail: string
  action: 'open_url' | 'open_diff' | 'show_note' | 'start_agent' | 'prompt_agent'
  params: Record<string, string>
  rank: number
}

export const MAX_SUGGESTIONS = 3
const MAX_DEV_CHIPS = 2

export interface SuggestionInput {
  /** Client pane id. */
  pane: string
  hasAgent: boolean
  atPrompt: boolean
  /** Git context of the pane's cwd; undefined when not read (no agent and not idle). */
  git?: GitContext
  /** This pane's HTTP listeners. */
  listeners: HostListener[]
  /** Direct URL of a wide-bound listener (undefined for loopback). */
  urlOf: (l: HostListener) => string | undefined
  /** Relay URL for a loopback listener, when one could be opened. */
  relayOf?: (l: HostListener) => string | undefined
}

const OP_LABEL: Record<string, string> = { merge: 'merge', rebase: 'rebase', 'cherry-pick': 'cherry-pick', revert: 'revert' }

/**
 * The pane's context actions: rank descending, at most three; an unfinished merge/rebase/cherry-pick
 * outranks and suppresses everything else. Ranks: git_conflict 30, dev_server 25, git_dirty 20,
 * create_pr 18 (our choice: below reviewing local changes, above a local-only server),
 * dev_server_local 15, shell_idle 10.
 */
export function buildSuggestions(i: SuggestionInput): Suggestion[] {
  const g = i.git
  if (i.hasAgent && g?.repo && g.operation) {
    return [
      {
        kind: 'git_conflict',
        performer: 'app',
        label: 'Resolve',
        detail: `${OP_LABEL[g.operation] ?? g.operation} in progress`,
        action: 'open_diff',
        params: { pane: i.pane },
        rank: 30,
      },
    ]
  }
  const out: Suggestion[] = []
  for (const l of i.listeners.slice(0, MAX_DEV_CHIPS)) {
    const port = String(l.port)
    const direct = i.urlOf(l)
    if (direct) {
      out.push({
        kind: 'dev_server',
        performer: 'app',
        label: `Open :${port}`,
        detail: `${l.proc} · serving`,
        action: 'open_url',
        params: { pane: i.pane, url: direct, port },
        rank: 25,
      })
      continue
    }
    const relay = i.relayOf?.(l)
    if (relay) {
      const note = `:${port} listens on ${l.bind} only; the bridge relays it to you.`
      out.push({
        kind: 'dev_server_local',
        performer: 'app',
        label: `Open :${port}`,
        detail: `${l.proc} · via the bridge`,
        action: 'open_url',
        params: { pane: i.pane, url: relay, port, note },
        rank: 15,
      })
    } else {
      const note = `${l.proc} on :${port} listens on ${l.bind} only, so it is reachable from this host alone. Start it bound to 0.0.0.0 (for example --host 0.0.0.0) to open it from your device.`
      out.push({
        kind: 'dev_server_local',
        performer: 'app',
        label: `:${port} is local-only`,
        detail: `${l.proc} · bound to localhost`,
        action: 'show_note',
        params: { pane: i.pane, port, note },
        rank: 15,
      })
    }
  }
  if (i.hasAgent && g?.repo) {
    if (g.changed > 0) {
      out.push({
        kind: 'git_dirty',
        performer: 'app',
        label: 'Review changes',
        detail: `${g.changed} file${g.changed === 1 ? '' : 's'} changed`,
        action: 'open_diff',
        params: { pane: i.pane },
        rank: 20,
      })
    }
    if (g.branch && g.default_branch && g.branch !== g.default_branch && g.remote && g.ahead > 0) {
      const prompt = `Push the branch ${g.branch} to ${g.remote} and open a pull request against ${g.default_branch}, summarising the ${g.ahead} commit${g.ahead === 1 ? '' : 's'} on it.`
      out.push({
        kind: 'create_pr',
        performer: 'agent',
        label: 'Create PR',
        detail: `${g.branch} is ${g.ahead} ahead of ${g.default_branch}`,
        action: 'prompt_agent',
        params: { pane: i.pane, prompt },
        rank: 18,
      })
    }
  }
  if (!i.hasAgent && i.atPrompt && g?.repo) {
    out.push({
      kind: 'shell_idle',
      performer: 'app',
      label: 'Start an agent',
      detail: `idle shell in ${basename(g.root) || 'a repository'}`,
      action: 'start_agent',
      params: { pane: i.pane },
      rank: 10,
    })
  }
  // Stable sort keeps source order among equal ranks.
  return out.sort((a, b) => b.rank - a.rank).slice(0, MAX_SUGGESTIONS)
}
