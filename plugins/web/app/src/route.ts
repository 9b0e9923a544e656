/** Hash routes, so any path the bridge serves the shell on works and reloads keep the view. */
export type Tab = 'card' | 'terminal' | 'transcript' | 'diff' | 'activity' | 'commands'
/** Views of one bridge (`?b=<key>`; the first paired bridge when absent). */
export type BridgeView = 'start' | 'spaces' | 'timeline' | 'usage' | 'devices' | 'alerts'
export const BRIDGE_VIEWS: BridgeView[] = ['start', 'spaces', 'timeline', 'usage', 'devices', 'alerts']
export type Route =
  | { view: 'inbox' }
  | { view: BridgeView; bridge?: string; params: URLSearchParams }
  /** The triage walk: every blocked agent, longest waiting first, then "All clear". */
  | { view: 'next' }
  | { view: 'pair'; code?: string; url?: string }
  | { view: 'agent'; bridge: string; pane: string; tab: Tab }
  /** From a push notification: the worker knows the bridge's server_id, not this page's key. */
  | { view: 'open'; server: string; pane: string }

const TABS: Tab[] = ['card', 'terminal', 'transcript', 'diff', 'activity', 'commands']

const dec = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

export function parseRoute(hash: string): Route {
  const [path, query = ''] = hash.replace(/^#/, '').split('?')
  const parts = path.split('/').filter(Boolean)
  if (parts[0] === 'pair') {
    const q = new URLSearchParams(query)
    return { view: 'pair', code: q.get('code') ?? undefined, url: q.get('url') ?? undefined }
  }
  if (BRIDGE_VIEWS.includes(parts[0] as BridgeView)) {
    const params = new URLSearchParams(query)
    return { view: parts[0] as BridgeView, bridge: params.get('b') ?? undefined, params }
  }
  if (parts[0] === 'next') return { view: 'next' }
  if (parts[0] === 'agent' && parts.length >= 3) {
    const tab = TABS.includes(parts[3] as Tab) ? (parts[3] as Tab) : 'card'
    return { view: 'agent', bridge: parts[1], pane: dec(parts[2]), tab }
  }
  if (parts[0] === 'open' && parts.length >= 3) {
    const server = dec(parts[1])
    return { view: 'open', server: server === '-' ? '' : server, pane: dec(parts[2]) }
  }
  return { view: 'inbox' }
}

export const agentHref = (bridge: string, pane: string, tab: Tab = 'card') => `#/agent/${bridge}/${encodeURIComponent(pane)}/${tab}`

/** `#/<view>?b=<bridge>&…`: a bridge view with its parameters. */
export function viewHref(view: BridgeView, bridge?: string, params: Record<string, string> = {}): string {
  const q = new URLSearchParams({ ...(bridge ? { b: bridge } : {}), ...params }).toString()
  return `#/${view}${q ? `?${q}` : ''}`
}
