/**
 * An alert's data keys as the mobile app reads them (type, agent, status, state_change_seq,
 * server_id, server_name, agent_title, title, body; and question, options, category on a blocked
 * card). Every value is a string: FCM rejects anything else and the reference client casts
 * strictly. Alert composition (plugins/push) and the FCM channel (plugins/notify-fcm) build them
 * here from the alert's plain fields, so the generic alert carries no FCM-shaped map.
 */

/** One option of a blocked card, as the alert carries it. */
export interface AlertOption {
  index: number
  label: string
  selected: boolean
  key?: string
}

/** The blocked card's parts an alert carries (each absent when the card did not show it). */
export interface AlertCardParts {
  question?: string
  options?: AlertOption[]
  category?: string
}

export interface AlertFields extends AlertCardParts {
  /** Client-facing pane id. */
  pane: string
  status: 'blocked' | 'done'
  serverId: string
  serverName: string
  /** One line already. */
  agentTitle: string
  title: string
  body: string
  /** Undefined when the agent could not be read; the key is then left out rather than guessed. */
  seq?: number
}

export function alertData(f: AlertFields): Record<string, string> {
  const data: Record<string, string> = {
    type: 'alert',
    agent: f.pane,
    status: f.status,
    server_id: f.serverId,
    server_name: f.serverName,
    agent_title: f.agentTitle,
    title: f.title,
    body: f.body,
  }
  if (f.seq !== undefined && Number.isInteger(f.seq)) data.state_change_seq = String(f.seq)
  if (f.status === 'blocked') {
    if (f.question) data.question = f.question
    if (f.options?.length) data.options = JSON.stringify(f.options.map((o) => ({ index: o.index, label: o.label, selected: !!o.selected, ...(o.key ? { key: o.key } : {}) })))
    if (f.category) data.category = f.category
  }
  return data
}
