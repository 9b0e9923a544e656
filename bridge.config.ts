import { defineConfig } from './core/plugin.ts'
import pairing from './plugins/pairing/index.ts'
import health from './plugins/health/index.ts'
import openapi from './plugins/openapi/index.ts'
import snapshot from './plugins/snapshot/index.ts'
import control from './plugins/control/index.ts'
import herdrProxy from './plugins/herdr-proxy/index.ts'
import events from './plugins/events/index.ts'
import timeline from './plugins/timeline/index.ts'
import push from './plugins/push/index.ts'
import notifyFcm from './plugins/notify-fcm/index.ts'
import notifyWebpush from './plugins/notify-webpush/index.ts'
import notifyNtfy from './plugins/notify-ntfy/index.ts'
import notifyWebhook from './plugins/notify-webhook/index.ts'
import agentState from './plugins/agent-state/index.ts'
import agentKinds from './plugins/agent-kinds/index.ts'
import transcript from './plugins/transcript/index.ts'
import diff from './plugins/diff/index.ts'
import branches from './plugins/branches/index.ts'
import attachments from './plugins/attachments/index.ts'
import attach from './plugins/attach/index.ts'
import agentLifecycle from './plugins/agent-lifecycle/index.ts'
import panes from './plugins/panes/index.ts'
import commands from './plugins/commands/index.ts'
import suggestions from './plugins/suggestions/index.ts'
import ports from './plugins/ports/index.ts'
import usage from './plugins/usage/index.ts'
import browse from './plugins/browse/index.ts'
import seen from './plugins/seen/index.ts'
import web from './plugins/web/index.ts'
import kindClaude from './plugins/kind-claude/index.ts'
import kindCodex from './plugins/kind-codex/index.ts'
import kindOpencode from './plugins/kind-opencode/index.ts'
import kindPi from './plugins/kind-pi/index.ts'
import kindHermes from './plugins/kind-hermes/index.ts'
import kindGeneric from './plugins/kind-generic/index.ts'
import type { PluginEntry } from './core/plugin.ts'

/**
 * Which plugins run, and their options (`[plugin, { …options }]`). Remove a line to turn a
 * capability off; its routes then answer 404 like an older bridge. Remove a `kind-*` line to drop
 * exactly that agent kind's support. `web` comes last because it serves every unlisted GET path.
 * A user config (`bridge serve --config`, docs/agent-kinds.md) starts from this list.
 */
export const defaultPlugins: PluginEntry[] = [
  pairing,
  health,
  openapi,
  snapshot,
  control,
  herdrProxy,
  events,
  timeline,
  push,
  notifyFcm,
  notifyWebpush,
  notifyNtfy,
  notifyWebhook,
  agentState,
  agentKinds,
  transcript,
  diff,
  branches,
  attachments,
  attach,
  agentLifecycle,
  panes,
  commands,
  suggestions,
  ports,
  usage,
  browse,
  kindClaude,
  kindCodex,
  kindOpencode,
  kindPi,
  kindHermes,
  kindGeneric,
  seen,
  web,
]

export default defineConfig({ plugins: defaultPlugins })
