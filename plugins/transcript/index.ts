/**
 * transcript — the structured conversation of an agent pane (frames and close codes:
 * docs/api-websockets.md).
 *
 *   WS /agent-transcript?pane=&token=[&subagent=]   hello, newest page, live tail, load_older,
 *                                                    session rotation, roster updates
 *   (plain GET: 404 with a one-line reason when there is no transcript to stream, else 426)
 *
 * Streams any kind whose `transcript` capability locates a session and normalizes its JSONL
 * lines (indexed here) or opens its own store. The snapshot's `last_activity_ts` / `subagents`
 * come from the same capability (plugins/snapshot/model.ts).
 */
import type { Peer } from 'crossws'
import { join } from 'node:path'
import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeWebSocket, type PluginContext } from '../../core/plugin.ts'
import { streamsTranscript } from '../../lib/agent-kinds.ts'
import { text } from '../../core/respond.ts'
import type { AgentInfo } from '../../core/herdr/index.ts'
import { sessionValue, type Located, type TranscriptReader } from '../../lib/transcript/locate.ts'
import { createTranscriptStream, type Source } from './stream.ts'
import { forgetTranscripts } from './transcript-file.ts'

interface Accepted extends Source {
  pane: string
  subagent?: { id: string; path: string }
  relocate: () => Promise<Source | null>
  log: PluginContext['log']
  indexDir: string
}

const notFound = (reason: string) => text(reason.slice(0, 300), 404)

function readerOf(ctx: PluginContext, kind: string | undefined): TranscriptReader | undefined {
  const t = ctx.agentKinds.get(kind)?.transcript
  return streamsTranscript(t) ? (t as TranscriptReader) : undefined
}

/** The pane's agent, its reader and located session; a string is the 404 reason. */
async function resolveSource(ctx: PluginContext, pane: string): Promise<Source | string> {
  const found = await ctx.herdr.getAgent(pane)
  const agent = found?.agent
  if (!found || !agent?.agent) return 'no such agent: this pane has no agent'
  const reader = readerOf(ctx, agent.agent)
  if (!reader) return `transcript not available: agent kind ${agent.agent.slice(0, 40)} not supported`
  let others: AgentInfo[] | undefined
  if (!sessionValue(agent)) {
    // Only needed to refuse a guess when another agent shares the cwd.
    others = await ctx.herdr
      .call<{ agents: AgentInfo[] }>(found.ref.session, 'agent.list', {})
      .then((r) => r.agents ?? [])
      .catch(() => [])
  }
  const loc = await reader.locate({ agent, home: ctx.home, env: ctx.env, others })
  if (!loc.ok) return loc.reason
  return { kind: agent.agent, reader, session: loc.located }
}

async function subagentOf(reader: TranscriptReader, parent: Located, id: string): Promise<{ id: string; path: string } | undefined> {
  if (!reader.roster || !reader.subagentPath) return undefined
  const rows = await reader.roster(parent).catch(() => [])
  // Matched against discovered rows; the id never builds a path unless it names one of them.
  const row = rows.find((r) => r.agent_id === id)
  return row ? { id: row.agent_id, path: reader.subagentPath(parent, row.agent_id) } : undefined
}

const streams = new WeakMap<Peer, ReturnType<typeof createTranscriptStream>>()

export default defineBridgePlugin({
  name: 'transcript',
  // Indexes in memory belong to this bridge; the stored ones let the next start skip the count.
  dispose: () => forgetTranscripts(),
  websockets: [
    defineBridgeWebSocket({
      path: '/agent-transcript',
      deflate: true,
      auth: 'device',
      queryToken: true,
      describe: 'Structured transcript of an agent pane: hello, newest page, live tail, load_older paging',
      query: v.object({
        pane: v.pipe(v.optional(v.string(), ''), v.nonEmpty('pane is required'), v.description('agent pane id, session-qualified (required)')),
        subagent: v.pipe(v.optional(v.string(), ''), v.description('optional agent_id from the roster: stream that delegated conversation (never rotates)')),
      }),
      doc: {
        serverFrames: {
          hello:
            "{type: 'hello', protocol: 5, pane, agent_kind, session_id, backlog_count: int, total: int, has_more: bool, oldest_loaded_seq: int, has_older: bool, subagent?: string, subagents?: [roster row]}",
          entry:
            "{type: 'entry', live: bool, entry: {id, parent_id?, seq: int, ts?: ISO string, role: user|assistant|system, kind: message|thinking|tool_call|tool_result|attachment, text?, tool?: {id, name, title?, subtitle?, command?, file?, diff?, diff_truncated?, input_summary?}, result?: {for_id, ok, output_summary?, diff?, truncated?}, parsed: bool}}",
          backlog_complete: "{type: 'backlog_complete', count: int, has_more: bool} after each newest page",
          page_complete: "{type: 'page_complete', requested_before_seq: int, oldest_loaded_seq: int, has_older: bool} after each load_older reply",
          session_changed: "{type: 'session_changed', pane, from: session id, to: session id}; a fresh hello and backlog follow",
          subagents:
            "{type: 'subagents', pane, subagents: [{agent_id, tool_use_id, agent_type, description, spawn_depth: int, done: bool, last_activity_ts?: int}]} whenever the roster changes",
        },
        clientFrames: {
          load_older: "{type: 'load_older', before_seq: int, limit?: int (0 or absent = 150, max 500)}; any other frame closes the socket with 1000",
        },
      },
      async accept({ query: { pane, subagent: sub }, ctx }) {
        const source = await resolveSource(ctx, pane)
        if (typeof source === 'string') return notFound(source)
        const state: Accepted = {
          ...source,
          pane,
          relocate: async () => {
            const next = await resolveSource(ctx, pane)
            return typeof next === 'string' ? null : next
          },
          log: ctx.log,
          indexDir: join(ctx.config.data_dir, 'transcript-index'),
        }
        if (sub !== '') {
          const hit = await subagentOf(source.reader, source.session, sub)
          if (!hit) return notFound('transcript not available: no such subagent')
          state.subagent = hit
        }
        return state
      },
      async open(peer, ws) {
        const state = ws.accepted as Accepted
        const stream = createTranscriptStream({
          ...state,
          send: (frame) => peer.send(JSON.stringify(frame)),
          close: (code, reason) => peer.close(code, reason),
          relocate: state.subagent ? undefined : state.relocate,
          onError: (err) => state.log.debug(`transcript ${state.pane}: ${(err as Error)?.message ?? err}`),
        })
        streams.set(peer, stream)
        await stream.start()
      },
      message(peer, message) {
        const raw = message.rawData
        streams.get(peer)?.message(typeof raw === 'string' ? raw : null)
      },
      close(peer) {
        streams.get(peer)?.stop()
        streams.delete(peer)
      },
    }),
  ],
})
