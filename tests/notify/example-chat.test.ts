/**
 * The third-party channel in examples/notifier-chat as a user gets it: `npm pack`ed from a copy,
 * installed from the tarball into a project outside the repo next to links of the bridge and of
 * valibot (its peers), and loaded by the config its README shows through `bridge serve --config`.
 * It then shows wherever the bridge lists channels, and its own config.json section is checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { installExample } from '../harness/as-installed.ts'
import { startServe, type Served } from '../kinds/serve-process.ts'
import { freePort } from '../harness/serve.ts'
import { startStandIn, type StandIn } from './stand-in.ts'

describe('a third-party notification channel loaded with bridge serve --config', () => {
  let work: string
  let project: string
  let room: StandIn
  let bridge: Served
  let env: NodeJS.ProcessEnv
  let bin: string

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'notifier-chat-'))
    project = await installExample('notifier-chat', work, ['README.md', 'index.ts', 'package.json'], ['valibot'])

    room = await startStandIn()
    room.answer('/hooks/room', 200)
    env = { ...process.env, HOME: join(work, 'home'), BRIDGE_DIR: join(work, 'data'), BRIDGE_CONFIG: '', BRIDGE_CHAT_URL: `${room.url}/hooks/room`, BRIDGE_CHAT_USERNAME: 'herdr' }
    bin = join(project, 'node_modules', 'herdr-bridge', 'cli', 'bin.mjs')
    bridge = await startServe({ bin, args: ['--config', './bridge.config.ts'], env, cwd: project })
    expect(bridge.log).toContain(`plugins from ${join(project, 'bridge.config.ts')}`)
  }, 180_000)

  afterAll(async () => {
    await bridge?.stop()
    await room?.close()
    rmSync(work, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
  })

  it('GET /admin/status lists the channel with the shipped ones, from its own status', async () => {
    const { status, body } = await bridge.get('/admin/status')
    expect(status).toBe(200)
    expect(body.alerts.map((a: { channel: string }) => a.channel)).toEqual(['fcm', 'webpush', 'ntfy', 'webhook', 'chat'])
    expect(body.alerts.at(-1)).toEqual({ channel: 'chat', loaded: true, configured: true, detail: `room webhook at ${new URL(room.url).host}` })
  })

  it('POST /admin/notify/test {channel: "chat"} posts one message to the room and says so', async () => {
    const r = await fetch(`${bridge.base}/admin/notify/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bridge.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'chat' }),
    })
    expect([r.status, await r.json()]).toEqual([200, { channels: [{ channel: 'chat', sent: 1, total: 1, enabled: true }] }])
    const posted = room.received.filter((x) => x.path === '/hooks/room')
    expect(posted).toHaveLength(1)
    expect(JSON.parse(posted[0].body.toString('utf8'))).toMatchObject({
      username: 'herdr',
      text: expect.stringMatching(/^\*.* · Test notification\*\nFinished — push notifications work/),
    })
  })

  it('`bridge notify test --channel chat` names it; an unknown channel is refused with the daemon’s list', async () => {
    const ok = await execa(process.execPath, [bin, 'notify', 'test', '--channel', 'chat'], { env, cwd: project, reject: false })
    expect(String(ok.stdout).trim()).toBe('chat     sent to 1 target')
    expect(ok.exitCode).toBe(0)
    const bad = await execa(process.execPath, [bin, 'notify', 'test', '--channel', 'sms'], { env, cwd: project, reject: false })
    expect(bad.exitCode).toBe(1)
    expect(String(bad.stderr).trim()).toBe('bridge: unknown channel "sms": want one of fcm, webpush, ntfy, webhook, chat')
  })

  it('a wrong value in its config.json section stops the start in one line naming the key', async () => {
    const data = join(work, 'data-bad')
    mkdirSync(data, { recursive: true, mode: 0o700 })
    writeFileSync(join(data, 'config.json'), JSON.stringify({ chat: { url: 'ftp://room.example/x' } }), { mode: 0o600 })
    const r = await execa(process.execPath, [bin, 'serve', '--config', './bridge.config.ts', '--addr', `127.0.0.1:${await freePort()}`], {
      env: { ...env, BRIDGE_DIR: data, BRIDGE_CHAT_URL: '' },
      cwd: project,
      reject: false,
      timeout: 60_000,
    })
    expect(r.exitCode).toBe(1)
    expect(String(r.stderr).trim().split('\n').at(-1)).toBe(
      `bridge: config file ${join(data, 'config.json')}: chat.url (or BRIDGE_CHAT_URL): want an http(s) URL; fix or remove the key, the file was left untouched`,
    )
  })
})
