// `bridge doctor` beside a running bridge lists its alert channels from that bridge's channel
// registry, line for line what `/admin/status` (`bridge status`) reports; without one it adds none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { freePort } from '../harness/serve.ts'
import { doctor } from '../../cli/doctor.ts'
import pairing from '../../plugins/pairing/index.ts'
import health from '../../plugins/health/index.ts'
import push from '../../plugins/push/index.ts'
import notifyWebhook from '../../plugins/notify-webhook/index.ts'
import notifyChat from '../../examples/notifier-chat/index.ts'

let b: TestBridge
beforeAll(async () => {
  b = await startBridge({ env: { BRIDGE_WEBHOOK_URL: 'https://hooks.example/x' }, user: { plugins: [pairing, health, push, notifyWebhook, notifyChat] } })
})
afterAll(() => b?.close())

async function run(addr: string): Promise<string[]> {
  const lines: string[] = []
  await doctor({ dir: b.dataDir, addr, env: b.env, out: (l) => lines.push(l), addresses: [] }).catch(() => {})
  return lines
}

describe('bridge doctor and the running bridge’s channels', () => {
  it('lists each channel as /admin/status does: ✓ configured, – not', async () => {
    const alerts = (await (await b.request('/admin/status')).json()).alerts as { channel: string; configured: boolean; detail: string }[]
    const lines = await run(new URL(b.url).host)
    expect(lines.filter((l) => l.includes(' alert channel '))).toEqual(alerts.map((a) => `${a.configured ? '✓' : '–'} alert channel ${a.channel}: ${a.detail}`))
    expect(lines.find((l) => l.startsWith('✓ alert channel webhook: '))).toMatch(/hooks\.example.*\(unsigned\)$/)
    expect(lines).toContain('– alert channel chat: not configured: set BRIDGE_CHAT_URL (or chat.url)')
  })

  it('adds no channel line when no bridge runs at the address', async () => {
    const lines = await run(`127.0.0.1:${await freePort()}`)
    expect(lines.filter((l) => l.includes('alert channel'))).toEqual([])
  })
})
