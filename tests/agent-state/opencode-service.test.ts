// The opencode question service end to end: a real HTTP server in the test plays opencode's
// local service, the simulator hosts a pane reported as a blocked opencode agent, and the real
// bridge reads the card. Screen fallbacks are checked against a question panel drawn in the pane.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { mkdirSync, writeFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { startStack, type Stack } from '../harness/stack.ts'
import { until } from '../harness/wait.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

const FIXTURE = join(import.meta.dirname, 'fixtures', 'opencode-question.txt')
const PASSWORD = 's3cret-pass'

interface Seen {
  method: string
  url: string
  auth: string | undefined
  body: string
}

let stack: Stack
let server: Server
let serviceUrl: string
let pane: string
let cwd: string
const seen: Seen[] = []
// What the fake service serves; tests change it.
let forms: unknown[] = []
let sessionDir = ''

const question = (fields: unknown[]) => ({ id: 'frm_1', sessionID: 'ses_1', title: 'Question', metadata: { kind: 'question', tool: { messageID: 'm', id: 't' } }, fields })
const backendField = {
  key: 'backend',
  title: 'Backend',
  description: 'Which backend should the cache use?',
  type: 'select',
  options: [
    { value: 'redis', label: 'Redis', description: 'fast' },
    { value: 'sqlite', label: 'SQLite', description: 'embedded' },
  ],
  custom: true,
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let b = ''
    req.on('data', (d) => (b += d))
    req.on('end', () => resolve(b))
  })
}

const writeRegistration = (url: string) => {
  const dir = join(stack.bridge.env.XDG_STATE_HOME!, 'opencode')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'service.json'), JSON.stringify({ url, password: PASSWORD }))
}

const card = async () => {
  const res = await stack.bridge.request(`/agent-state?pane=${encodeURIComponent(pane)}`)
  expect(res.status).toBe(200)
  return (await res.json()) as GetResponses['/agent-state']
}

beforeAll(async () => {
  stack = await startStack()
  server = createServer(async (req, res) => {
    const body = await readBody(req)
    seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body })
    const send = (status: number, value?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(value === undefined ? '' : JSON.stringify(value))
    }
    if (req.headers.authorization !== 'Basic ' + Buffer.from(`opencode:${PASSWORD}`).toString('base64')) return send(401, { error: 'auth' })
    if (req.method === 'GET' && req.url === '/api/session/ses_1') return send(200, { data: { id: 'ses_1', location: { directory: sessionDir } } })
    if (req.method === 'GET' && req.url === '/api/session') return send(200, { data: [{ id: 'ses_1', location: { directory: sessionDir } }] })
    if (req.method === 'GET' && req.url === '/api/session/ses_1/form') return send(200, { data: forms })
    if (req.method === 'POST' && /^\/api\/session\/ses_1\/form\/frm_1\/(reply|cancel)$/.test(req.url!)) return send(200, { data: true })
    send(404, { error: 'not found' })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  cwd = join(stack.home, 'proj')
  mkdirSync(cwd, { recursive: true })
  sessionDir = cwd
  const created = await stack.sim.request('workspace.create', { cwd })
  pane = created.root_pane.pane_id
  // Draw opencode's question panel, then report the pane as a blocked opencode agent. The sleep
  // keeps a foreground process: herdr releases an integration-reported agent at a shell prompt.
  await stack.sim.request('pane.send_text', { pane_id: pane, text: `clear; cat '${FIXTURE}'; sleep 3600\r` })
  await until(async () => {
    const r = await stack.sim.request('pane.read', { pane_id: pane, source: 'visible', format: 'text' })
    return r.read.text.includes('esc dismiss') ? true : undefined
  }, 'the panel on screen')
  await stack.sim.request('pane.report_agent', { pane_id: pane, source: 'herdr:opencode', agent: 'opencode', state: 'blocked', agent_session_id: 'ses_1' })
  writeRegistration(serviceUrl)
})

afterAll(async () => {
  await new Promise<void>((r) => server?.close(() => r()))
  await stack?.close()
})

const screenCard = {
  question: 'Which backend should the cache use?',
  options: [
    { index: 1, label: 'Redis', selected: true },
    { index: 2, label: 'SQLite', selected: false },
    { index: 3, label: 'Type your own answer', selected: false },
    { index: 0, label: 'Dismiss', selected: false, key: 'esc' },
  ],
}

describe('opencode question service', () => {
  it('a one-field question form is the blocked question, category question_panel', async () => {
    forms = [question([backendField])]
    seen.length = 0
    const c = await card()
    expect(c.agent_kind).toBe('opencode')
    expect(c.agent_status).toBe('blocked')
    expect(c.parsed).toBe(true)
    expect(c.headline).toBe('Which backend should the cache use?')
    expect(c.blocked).toEqual({
      question: 'Which backend should the cache use?',
      options: [
        { index: 1, label: 'Redis', selected: true },
        { index: 2, label: 'SQLite', selected: false },
        { index: 0, label: 'Dismiss', selected: false, key: 'esc' },
      ],
      category: 'question_panel',
    })
    expect(c.permission_mode).toBeUndefined()
    // herdr's session id was verified against the pane's cwd, then its forms were read, with Basic
    // auth. (The push watcher may read the same card for its notification: compare the set.)
    expect(new Set(seen.map((s) => `${s.method} ${s.url}`))).toEqual(new Set(['GET /api/session/ses_1', 'GET /api/session/ses_1/form']))
    expect(seen.every((s) => s.auth === 'Basic ' + Buffer.from(`opencode:${PASSWORD}`).toString('base64'))).toBe(true)
  })

  it('a form with several questions falls back to the screen', async () => {
    forms = [question([backendField, { ...backendField, key: 'second' }])]
    const c = await card()
    expect(c.blocked).toEqual(screenCard)
  })

  it('a form that is not a question is ignored', async () => {
    forms = [{ ...question([backendField]), metadata: { kind: 'permission' } }]
    expect((await card()).blocked).toEqual(screenCard)
  })

  it('a session in another directory is not used; the newest root session of the cwd is', async () => {
    forms = [question([backendField])]
    sessionDir = '/somewhere/else'
    seen.length = 0
    expect((await card()).blocked).toEqual(screenCard)
    expect(new Set(seen.map((s) => `${s.method} ${s.url}`))).toEqual(new Set(['GET /api/session/ses_1', 'GET /api/session']))
    sessionDir = cwd
  })

  it('an unreachable service falls back to the screen', async () => {
    forms = [question([backendField])]
    const dead = createServer()
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()))
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`
    await new Promise<void>((r) => dead.close(() => r()))
    writeRegistration(deadUrl)
    try {
      expect((await card()).blocked).toEqual(screenCard)
    } finally {
      writeRegistration(serviceUrl)
    }
  })

  it('no registration file falls back to the screen', async () => {
    const dir = join(stack.bridge.env.XDG_STATE_HOME!, 'opencode')
    rmSync(join(dir, 'service.json'))
    try {
      expect((await card()).blocked).toEqual(screenCard)
    } finally {
      writeRegistration(serviceUrl)
    }
  })

  it('answers through the service: index → option value, text → free-form, dismiss → cancel', async () => {
    forms = [question([backendField])]
    const kind = stack.bridge.bridge.ctx.agentKinds.get('opencode')!
    const agent = (await stack.bridge.bridge.ctx.herdr.getAgent(pane))!.agent
    const ctx = stack.bridge.bridge.ctx
    seen.length = 0
    expect(await kind.question!.answer(ctx, agent, { index: 2 })).toBe(true)
    expect(await kind.question!.answer(ctx, agent, { text: 'memcached' })).toBe(true)
    expect(await kind.question!.answer(ctx, agent, { dismiss: true })).toBe(true)
    expect(await kind.question!.answer(ctx, agent, { index: 9 })).toBe(false)
    const posts = seen.filter((s) => s.method === 'POST').map((s) => [s.url, s.body])
    expect(posts).toEqual([
      ['/api/session/ses_1/form/frm_1/reply', JSON.stringify({ answer: { backend: 'sqlite' } })],
      ['/api/session/ses_1/form/frm_1/reply', JSON.stringify({ answer: { backend: 'memcached' } })],
      ['/api/session/ses_1/form/frm_1/cancel', ''],
    ])
    forms = [question([{ ...backendField, type: 'multiselect', custom: false }])]
    seen.length = 0
    expect(await kind.question!.answer(ctx, agent, { text: 'free' })).toBe(false)
    expect(await kind.question!.answer(ctx, agent, { index: 1 })).toBe(true)
    expect(seen.filter((s) => s.method === 'POST').map((s) => s.body)).toEqual([JSON.stringify({ answer: { backend: ['redis'] } })])
  })
})

describe('/approve and /send with a pending question form', () => {
  it('approve answers the first option, a bare number picks that option, esc dismisses — nothing typed', async () => {
    forms = [question([backendField])]
    const seq = (await stack.bridge.bridge.ctx.herdr.getAgent(pane))!.agent.state_change_seq
    seen.length = 0
    const post = async (path: string, json: unknown) => {
      const res = await stack.bridge.request(path, { method: 'POST', json })
      return { status: res.status, body: await res.json() }
    }
    expect(await post('/approve', { agent: pane, seq })).toEqual({ status: 200, body: { ok: true, applied: true } })
    expect(await post('/send', { pane, text: '2\n' })).toEqual({ status: 200, body: { ok: true } })
    expect(await post('/send', { pane, text: 'valkey\r' })).toEqual({ status: 200, body: { ok: true } })
    expect(await post('/send', { pane, key: 'esc' })).toEqual({ status: 200, body: { ok: true } })
    const writes = seen.filter((s) => s.method === 'POST').map((s) => `${s.url} ${s.body}`)
    expect(writes).toEqual([
      '/api/session/ses_1/form/frm_1/reply {"answer":{"backend":"redis"}}',
      '/api/session/ses_1/form/frm_1/reply {"answer":{"backend":"sqlite"}}',
      '/api/session/ses_1/form/frm_1/reply {"answer":{"backend":"valkey"}}',
      '/api/session/ses_1/form/frm_1/cancel ',
    ])
  })
})
