import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute, type PluginContext } from '../../core/plugin.ts'
import { fail, HttpError } from '../../core/respond.ts'
import { firstId } from '../../lib/strings.ts'
import { HerdrError, qualifyId } from '../../core/herdr/index.ts'
import { createPane, waitForPrompt } from '../../core/herdr/panes.ts'
import { availableAgents, createKindCatalog, findOnPath, knownKinds, type KindCatalog } from './catalog.ts'
import { checkCwd, clampTimeout, deriveName, NAME_RE } from './rules.ts'
import { launch, stopToPrompt } from './launch.ts'
import { startArgs } from './options.ts'

/**
 * Agent lifecycle: start, restart and stop an agent in a pane. Errors are short plain-text bodies
 * (clients show them).
 *   GET  /agents/available  {agents: [{kind, path, state_reporting}], known_kinds, discovery}
 *   POST /agent/start       {kind, pane_id | split_from | workspace_id, cwd?, prompt?, name?,
 *                           direction?, label?, timeout_ms?, options?} → {pane_id, tab_id, workspace_id, kind,
 *                           name, created_pane, prompt_sent, prompt_error?}; bridge `agent_started`
 *   POST /agent/restart     {pane_id, prompt?, timeout_ms?} → {restarted, pane_id, kind, name, cwd,
 *                           prompt_sent, history_kept: false, prompt_error?}; bridge `agent_restarted`
 *   POST /agent/stop        {pane_id} → {stopped, pane_id, kind}; 409 when the prompt is not back;
 *                           bridge `agent_stopped`
 */

const PROMPT_WAIT_MS = 8000
const str = () => v.optional(v.string('want a string'))

const ids = { pane_id: v.string(), tab_id: v.string(), workspace_id: v.string() }

function notFoundAs404(err: unknown): never {
  if (err instanceof HerdrError && err.notFound) fail(404, err.message || err.code)
  throw err
}

async function agentOrNull(ctx: PluginContext, paneId: string) {
  return ctx.herdr.getAgent(paneId).catch(notFoundAs404)
}

export default defineBridgePlugin({
  name: 'agent-lifecycle',
  setup: (ctx): KindCatalog => createKindCatalog(ctx),
  routes: [
    defineBridgeRoute.with<KindCatalog>()({
      method: 'GET',
      path: '/agents/available',
      auth: 'device',
      describe: 'Agent kinds herdr can launch on this host',
      response: v.object({
        agents: v.array(v.object({ kind: v.string(), path: v.string(), state_reporting: v.boolean() })),
        known_kinds: v.array(v.string()),
        discovery: v.string(),
      }),
      handler: ({ ctx, state }) => availableAgents(ctx, state),
    }),
    defineBridgeRoute.with<KindCatalog>()({
      method: 'POST',
      path: '/agent/start',
      auth: 'device',
      describe: 'Start an agent in an idle shell, a new split or a new tab',
      response: v.object({ ...ids, kind: v.string(), name: v.string(), created_pane: v.boolean(), prompt_sent: v.boolean(), prompt_error: v.optional(v.string()) }),
      body: v.object({
        kind: str(),
        pane_id: str(),
        split_from: str(),
        workspace_id: str(),
        cwd: str(),
        prompt: str(),
        name: str(),
        direction: v.optional(v.picklist(['right', 'down', 'up', 'left'], 'want right, down, up or left')),
        label: str(),
        timeout_ms: v.optional(v.number('want a number')),
        /** The kind's start options (`GET /agent-kinds` lists them as `start_options`). */
        options: v.optional(v.record(v.string(), v.string('want a string'), 'want an object of option names to strings')),
      }),
      audit: ({ body }) => ({ pane: firstId(body.pane_id, body.split_from, body.workspace_id) }),
      async handler({ body, ctx, state }) {
        if (!body.kind) fail(400, 'kind: want an agent kind')
        const targets = [body.pane_id, body.split_from, body.workspace_id].filter((t) => t !== undefined && t !== '')
        if (targets.length !== 1) fail(400, 'want exactly one of pane_id, split_from, workspace_id')
        if (body.cwd !== undefined && body.pane_id) fail(400, 'cwd cannot be combined with pane_id (the pane already has a directory)')
        if (body.cwd !== undefined) {
          const bad = checkCwd(body.cwd)
          if (bad) fail(400, bad)
        }
        if (body.name !== undefined && !NAME_RE.test(body.name)) fail(400, 'name: want a lowercase letter then up to 31 of a-z 0-9 _ -')
        const kind = body.kind.trim().toLowerCase()
        const kinds = await knownKinds(ctx, state)
        if (kinds.length && !kinds.includes(kind)) fail(400, `unknown agent kind: ${kind}`)
        const started = startArgs(kind, ctx.agentKinds.get(kind), body.options)
        if ('error' in started) fail(400, started.error)
        if (!findOnPath(kind, ctx.env.PATH)) fail(409, `${kind} is not installed on this host (not on PATH)`)
        const timeoutMs = clampTimeout(body.timeout_ms)

        let session: string
        let paneId: string
        let ids: { pane_id: string; tab_id: string; workspace_id: string }
        const created = !body.pane_id
        if (body.pane_id) {
          const found = await ctx.herdr.getPane(body.pane_id).catch(notFoundAs404)
          if (!found) fail(404, `no such pane: ${body.pane_id}`)
          if (found.pane.agent) fail(409, `pane ${body.pane_id} already runs ${found.pane.agent}; use /agent/restart`)
          session = found.ref.session
          paneId = found.ref.id
          ids = { pane_id: qualifyId(session, paneId), tab_id: qualifyId(session, found.pane.tab_id), workspace_id: qualifyId(session, found.pane.workspace_id) }
        } else {
          const pane = await createPane(ctx.herdr, {
            split_from: body.split_from || undefined,
            workspace_id: body.workspace_id || undefined,
            direction: body.direction,
            cwd: body.cwd,
            label: body.label,
          }).catch(notFoundAs404)
          session = pane.session
          paneId = pane.pane.pane_id
          ids = pane.ids
          ctx.bus.publish('bridge', 'pane_created', { ...ids, session })
        }

        const shell = await waitForPrompt(ctx.herdr, session, paneId, PROMPT_WAIT_MS)
        if (!shell.atPrompt) {
          // 409 when the pane is not at a shell prompt, for every targeting form, new panes included:
          // the launch command would be typed into whatever runs there.
          if (created) fail(409, `the new pane ${ids.pane_id} did not reach a shell prompt within ${PROMPT_WAIT_MS / 1000} s`)
          fail(409, `pane ${ids.pane_id} is busy running ${shell.busyWith}`.slice(0, 400))
        }
        const name = body.name ?? deriveName(kind, paneId)
        const r = await launch(ctx, { session, paneId, kind, name, timeoutMs, args: started.args, prompt: body.prompt || undefined })
        ctx.bus.publish('bridge', 'agent_started', { ...ids, kind, name: r.name, created_pane: created, session })
        return { ...ids, kind, name: r.name, created_pane: created, prompt_sent: r.prompt_sent, ...(r.prompt_error ? { prompt_error: r.prompt_error } : {}) }
      },
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/agent/restart',
      auth: 'device',
      describe: "Replace a pane's agent with a fresh one of the same kind (the conversation is lost)",
      response: v.object({
        restarted: v.literal(true),
        pane_id: v.string(),
        kind: v.string(),
        name: v.string(),
        cwd: v.string(),
        prompt_sent: v.boolean(),
        history_kept: v.literal(false),
        prompt_error: v.optional(v.string()),
      }),
      body: v.object({
        pane_id: str(),
        prompt: str(),
        timeout_ms: v.optional(v.number('want a number')),
      }),
      audit: ({ body }) => ({ pane: body.pane_id }),
      async handler({ body, ctx }) {
        if (!body.pane_id) fail(400, 'pane_id: want a pane id')
        const found = await agentOrNull(ctx, body.pane_id)
        if (!found?.agent.agent) fail(404, `no agent in pane ${body.pane_id}`)
        const { ref, agent } = found
        const kind = String(agent.agent)
        const name = agent.name && NAME_RE.test(agent.name) ? agent.name : deriveName(kind, ref.id)
        const cwd = agent.cwd ?? ''
        if (!(await stopToPrompt(ctx, ref.session, ref.id))) fail(409, `the ${kind} agent in pane ${ref.qualified} did not quit; it is still running`)
        let r
        try {
          r = await launch(ctx, { session: ref.session, paneId: ref.id, kind, name, timeoutMs: clampTimeout(body.timeout_ms), prompt: body.prompt || undefined })
        } catch (err) {
          const why = err instanceof HttpError || err instanceof HerdrError ? err.message : 'unexpected error'
          fail(502, `stopped ${kind} but could not start it again (pane ${ref.qualified} is now an idle shell): ${why}`.slice(0, 400))
        }
        ctx.bus.publish('bridge', 'agent_restarted', { pane_id: ref.qualified, kind, name: r.name, session: ref.session })
        return {
          restarted: true,
          pane_id: ref.qualified,
          kind,
          name: r.name,
          cwd,
          prompt_sent: r.prompt_sent,
          history_kept: false,
          ...(r.prompt_error ? { prompt_error: r.prompt_error } : {}),
        }
      },
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/agent/stop',
      auth: 'device',
      describe: "Quit a pane's agent and keep the pane",
      response: v.object({ stopped: v.literal(true), pane_id: v.string(), kind: v.string() }),
      body: v.object({ pane_id: str() }),
      audit: ({ body }) => ({ pane: body.pane_id }),
      async handler({ body, ctx }) {
        if (!body.pane_id) fail(400, 'pane_id: want a pane id')
        const found = await agentOrNull(ctx, body.pane_id)
        if (!found?.agent.agent) fail(404, `no agent in pane ${body.pane_id}`)
        const kind = String(found.agent.agent)
        const { ref } = found
        if (!(await stopToPrompt(ctx, ref.session, ref.id))) fail(409, `the ${kind} agent in pane ${ref.qualified} did not quit; it is still running`)
        ctx.bus.publish('bridge', 'agent_stopped', { pane_id: ref.qualified, kind, session: ref.session })
        return { stopped: true, pane_id: ref.qualified, kind }
      },
    }),
  ],
})
