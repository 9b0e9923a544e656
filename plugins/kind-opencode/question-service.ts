/**
 * opencode's managed question service: the blocked question is a form held by opencode's local
 * HTTP service (read instead of the screen, and answered through it by /approve and /send),
 * found through its registration file. Every failure (no file, unreachable, 404, odd JSON) reads
 * as "no pending question" so the screen wins.
 */
import { readFile, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import * as v from 'valibot'
import { field, isObj, parseJsonRecord, str, type KindContext } from '../../lib/kit.ts'
import { readCapped } from '../../lib/capped-read.ts'
import type { AgentInfo, CardOption, PendingQuestion, QuestionAnswer, QuestionService } from '../../lib/kit.ts'

export const SERVICE_TIMEOUT_MS = 10_000
const MAX_REGISTRATION = 64 * 1024
const MAX_REPLY = 4 * 1024 * 1024

interface Registration {
  url: string
  password: string
}

/** An optional field of the service's JSON: absent or null. */
const opt = <T extends v.GenericSchema>(schema: T) => v.optional(v.nullable(schema))

const formField = v.object({
  key: v.string(),
  title: opt(v.string()),
  description: opt(v.string()),
  type: opt(v.string()),
  options: opt(v.array(v.object({ value: v.string(), label: opt(v.string()), description: opt(v.string()) }))),
  custom: opt(v.boolean()),
})

/** A pending form as the service lists it; one that does not fit is not a question the card can show. */
const formSchema = v.object({
  id: v.string(),
  sessionID: opt(v.string()),
  title: opt(v.string()),
  metadata: opt(v.object({ kind: opt(v.string()) })),
  fields: opt(v.array(formField)),
})

export type FormField = v.InferOutput<typeof formField>
export type Form = v.InferOutput<typeof formSchema>

/** `$XDG_STATE_HOME/opencode/service.json`, else `~/.local/state/opencode/service.json`. */
export function registrationPath(env: NodeJS.ProcessEnv, home: string): string {
  const state = env.XDG_STATE_HOME?.trim() || join(home, '.local/state')
  return join(state, 'opencode', 'service.json')
}

async function registration(ctx: KindContext): Promise<Registration | null> {
  const path = registrationPath(ctx.env, ctx.home)
  try {
    const st = await stat(path)
    if (!st.isFile() || st.size > MAX_REGISTRATION) return null
    const { url, password } = parseJsonRecord(await readFile(path, 'utf8')) ?? {}
    if (typeof url !== 'string' || !url || typeof password !== 'string' || !password) return null
    return { url: url.replace(/\/+$/, ''), password }
  } catch {
    return null
  }
}

class ServiceError extends Error {}

async function call(reg: Registration, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(reg.url + path, {
    method,
    headers: {
      authorization: 'Basic ' + Buffer.from(`opencode:${reg.password}`).toString('base64'),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS),
    redirect: 'error',
  })
  if (res.status === 404) {
    await res.body?.cancel()
    return null
  }
  if (!res.ok) {
    await res.body?.cancel()
    throw new ServiceError(`opencode service: ${method} ${path}: ${res.status}`)
  }
  const len = Number(res.headers.get('content-length') ?? 0)
  if (len > MAX_REPLY) {
    await res.body?.cancel()
    throw new ServiceError(`opencode service: reply over ${MAX_REPLY} bytes`)
  }
  // Capped in bytes and time whatever Content-Length said (lib/capped-read.ts).
  const reply = await readCapped(res.body, { maxBytes: MAX_REPLY, deadlineMs: SERVICE_TIMEOUT_MS })
  if (reply.truncated) throw new ServiceError(reply.stopped === 'cap' ? `opencode service: reply over ${MAX_REPLY} bytes` : 'opencode service: reply not finished in time')
  const text = reply.text
  if (!text.trim()) return {}
  return JSON.parse(text)
}

const clean = (p: string | undefined) => (p ? resolve(p) : '')
const dataOf = (j: unknown) => (isObj(j) && 'data' in j ? j.data : j)
/** A session's directory: `location.directory`, else `directory`. */
const dirOf = (s: unknown) => clean(str(field(field(s, 'location'), 'directory')) ?? str(field(s, 'directory')))

/** The agent's opencode session: herdr's session id when its directory agrees, else the newest root session in the cwd. */
async function sessionId(reg: Registration, agent: AgentInfo): Promise<string | null> {
  const cwd = clean(agent.cwd)
  const known = agent.agent_session?.value
  if (known) {
    const s = dataOf(await call(reg, 'GET', `/api/session/${encodeURIComponent(known)}`))
    const dir = dirOf(s)
    if (s && (!dir || !cwd || dir === cwd)) return known
  }
  if (!cwd) return null
  const list = dataOf(await call(reg, 'GET', '/api/session'))
  if (!Array.isArray(list)) return null
  const updated = (s: unknown) => Number(field(field(s, 'time'), 'updated') ?? 0)
  const roots = (list as unknown[]).filter((s): s is Record<string, unknown> & { id: string } => isObj(s) && typeof s.id === 'string' && !s.parentID && dirOf(s) === cwd)
  roots.sort((a, b) => updated(b) - updated(a))
  return roots[0]?.id ?? null
}

async function pendingForm(reg: Registration, sid: string): Promise<Form | null> {
  const forms = dataOf(await call(reg, 'GET', `/api/session/${encodeURIComponent(sid)}/form`))
  if (!Array.isArray(forms)) return null
  const found: unknown = (forms as unknown[]).find((f) => isObj(f) && typeof f.id === 'string' && field(f.metadata, 'kind') === 'question')
  const form = v.safeParse(formSchema, found)
  return form.success ? form.output : null
}

/** A one-field question form as the card's question and options; null when the screen should be read instead. */
export function projectForm(form: Form): PendingQuestion | null {
  const fields = Array.isArray(form.fields) ? form.fields : []
  if (fields.length !== 1) return null
  const f = fields[0]
  const question = (f.description || f.title || '').trim()
  const opts = Array.isArray(f.options) ? f.options : []
  if (!question && !opts.length) return null
  const options: CardOption[] = opts.map((o, i) => ({ index: i + 1, label: String(o.label || o.value || ''), selected: i === 0 }))
  options.push({ index: 0, label: 'Dismiss', selected: false, key: 'esc' })
  return { question, options, category: 'question_panel', custom: !!f.custom }
}

async function locate(ctx: KindContext, agent: AgentInfo): Promise<{ reg: Registration; sid: string; form: Form } | null> {
  const reg = await registration(ctx)
  if (!reg) return null
  const sid = await sessionId(reg, agent)
  if (!sid) return null
  const form = await pendingForm(reg, sid)
  return form ? { reg, sid, form } : null
}

export const opencodeQuestionService: QuestionService = {
  async pending(ctx, agent) {
    try {
      const found = await locate(ctx, agent)
      return found ? projectForm(found.form) : null
    } catch (err) {
      ctx.log.debug(`opencode question service: ${(err as Error).message}`)
      return null
    }
  },

  async answer(ctx, agent, answer: QuestionAnswer) {
    const found = await locate(ctx, agent).catch(() => null)
    if (!found || !projectForm(found.form)) return false
    const { reg, sid, form } = found
    const base = `/api/session/${encodeURIComponent(sid)}/form/${encodeURIComponent(form.id)}`
    if ('dismiss' in answer) {
      await call(reg, 'POST', `${base}/cancel`)
      return true
    }
    const field = form.fields![0]
    let value: string
    if ('index' in answer) {
      const opt = field.options?.[answer.index - 1]
      if (!opt) return false
      value = opt.value
    } else {
      if (!field.custom) return false
      value = answer.text
    }
    await call(reg, 'POST', `${base}/reply`, { answer: { [field.key]: field.type === 'multiselect' ? [value] : value } })
    return true
  },
}
