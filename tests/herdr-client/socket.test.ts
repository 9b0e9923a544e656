import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server, type Socket } from 'node:net'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HerdrError, herdrRequest } from '../../core/herdr/socket.ts'
import { probeSocket, scanNamedSessions, sessionSocketPath } from '../../core/herdr/discovery.ts'

// Real Unix sockets that misbehave the ways a dying herdr does.
let dir: string
const servers: Server[] = []
const conns = new Set<Socket>()
const listen = (path: string, onConn: (s: Socket) => void) =>
  new Promise<void>((resolve) => {
    const srv = createServer((s) => {
      conns.add(s)
      onConn(s)
    })
    servers.push(srv)
    srv.listen(path, () => resolve())
  })

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'herdr-sock-'))
})
afterAll(async () => {
  for (const c of conns) c.destroy()
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))))
  rmSync(dir, { recursive: true, force: true })
})

describe('one request per connection', () => {
  it('reads the reply with the matching id, skipping events and other ids', async () => {
    const path = join(dir, 'ok.sock')
    await listen(path, (s) =>
      s.once('data', (d) => {
        const { id } = JSON.parse(d.toString())
        s.end(`{"event":"pane_created","data":{}}\n{"id":"other","result":{"type":"x"}}\n{"id":"${id}","result":{"type":"pong","protocol":20}}\n`)
      }),
    )
    expect(await herdrRequest(path, 'ping', {})).toEqual({ type: 'pong', protocol: 20 })
  })

  it('keeps herdr errors as {code, message}', async () => {
    const path = join(dir, 'err.sock')
    await listen(path, (s) => s.once('data', () => s.end('{"id":"","error":{"code":"invalid_request","message":"invalid request: bad"}}\n')))
    const err = await herdrRequest<never>(path, 'nope', {}).catch((e: HerdrError) => e)
    expect(err).toBeInstanceOf(HerdrError)
    expect([err.code, err.message, err.notFound]).toEqual(['invalid_request', 'invalid request: bad', false])
  })

  it('fails at once when herdr hangs up mid-request or is not there', async () => {
    const path = join(dir, 'hangup.sock')
    await listen(path, (s) => s.once('data', () => s.destroy()))
    const hung = await herdrRequest<never>(path, 'session.snapshot', {}, { timeoutMs: 10_000 }).catch((e: HerdrError) => e)
    expect([hung.code, hung.message]).toEqual(['unreachable', 'herdr closed the connection without replying to session.snapshot'])
    const missing = await herdrRequest<never>(join(dir, 'none.sock'), 'ping', {}, { timeoutMs: 10_000 }).catch((e: HerdrError) => e)
    expect(missing.code).toBe('unreachable')
    expect(missing.message).toMatch(/ENOENT/)
  })

  it('abandons a wedged socket at the deadline', async () => {
    const path = join(dir, 'wedged.sock')
    await listen(path, () => {})
    const err = await herdrRequest<never>(path, 'agent.list', {}, { timeoutMs: 300 }).catch((e: HerdrError) => e)
    expect([err.code, err.message]).toEqual(['timeout', 'no reply to agent.list within 0.3 s'])
  })
})

describe('session discovery', () => {
  it('lists valid session directories with a live socket; a stale or missing socket is dead', async () => {
    const env = { XDG_CONFIG_HOME: join(dir, 'cfg'), HOME: '/nonexistent' }
    for (const name of ['live', 'stale', 'empty', 'bad name', 'default']) mkdirSync(join(dir, 'cfg/herdr/sessions', name), { recursive: true })
    await listen(sessionSocketPath('live', env), () => {})
    await listen(sessionSocketPath('bad name', env), () => {})
    writeFileSync(sessionSocketPath('stale', env), '')
    expect(sessionSocketPath('default', env)).toBe(join(dir, 'cfg/herdr/herdr.sock'))
    expect(sessionSocketPath('default', { ...env, HERDR_SOCKET_PATH: '/x/h.sock' })).toBe('/x/h.sock')
    expect(await probeSocket(sessionSocketPath('live', env))).toBe('alive')
    expect(await probeSocket(sessionSocketPath('stale', env))).toBe('dead')
    expect(await probeSocket(sessionSocketPath('empty', env))).toBe('dead')
    expect(await scanNamedSessions(env)).toEqual(['live'])
    expect(await scanNamedSessions({ XDG_CONFIG_HOME: join(dir, 'nothing-here') })).toEqual([])
  })
})
