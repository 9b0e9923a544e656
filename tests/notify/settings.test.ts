import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { loadConfig } from '../../core/config.ts'
import pairing from '../../plugins/pairing/index.ts'
import push from '../../plugins/push/index.ts'
import notifyNtfy from '../../plugins/notify-ntfy/index.ts'
import notifyWebhook from '../../plugins/notify-webhook/index.ts'
import notifyWebpush from '../../plugins/notify-webpush/index.ts'

/**
 * Each shipped notifier reads its own settings (core/plugin-config.ts), from the config.json keys
 * and environment variables users have always had: `notify.webpush`, `notify.ntfy`,
 * `notify.webhooks`, and the push plugin's `notify.settle_ms` / `notify.cooldown_ms`. A wrong
 * value stops the start in the one line the core used to give.
 */

const plugins = [pairing, push, notifyWebpush, notifyNtfy, notifyWebhook]
let b: TestBridge | undefined
const homes: string[] = []
afterEach(async () => {
  await b?.close()
  b = undefined
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
})

/** A user's config.json has the core's keys already (written on the first start). */
const CORE_KEYS = '"admin_token": "0123456789abcdef0123", "server_id": "s1"'

function dataDirWith(body: string): { home: string; dataDir: string; path: string } {
  const home = mkdtempSync(join(tmpdir(), 'bridge-settings-'))
  homes.push(home)
  const dataDir = join(home, '.herdr-bridge')
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  writeFileSync(join(dataDir, 'config.json'), body, { mode: 0o600 })
  return { home, dataDir, path: join(dataDir, 'config.json') }
}

describe('notifier settings', { timeout: 60_000 }, () => {
  it('a wrong value in the notify section stops the start in one line naming the key, without replacing the file', async () => {
    for (const [body, want] of [
      [`{${CORE_KEYS}, "notify": {"webhooks": [{"url": "https://h.example", "secret": 5}]}}`, 'notify.webhooks.0.secret: Invalid type: Expected string but received 5'],
      [`{${CORE_KEYS}, "notify": {"webpush": {"insecure": "yes"}}}`, 'notify.webpush.insecure: want true or false'],
      [`{${CORE_KEYS}, "notify": {"ntfy": ["https://ntfy.example/t"]}}`, 'notify.ntfy: want a JSON object'],
      [`{${CORE_KEYS}, "notify": {"settle_ms": -1}}`, 'notify.settle_ms: want 0 or more'],
      [`{${CORE_KEYS}, "notify": {"cooldown_ms": 1.5}}`, 'notify.cooldown_ms: want whole milliseconds'],
      [`{${CORE_KEYS}, "notify": 1}`, 'notify: want a JSON object'],
    ]) {
      const { home, dataDir, path } = dataDirWith(body)
      // The core no longer reads these keys; the plugin that owns them refuses them at start.
      expect(() => loadConfig({ dir: dataDir, env: {} })).not.toThrow()
      // (The harness paces alerts through the environment, which would win over the file.)
      const env = { BRIDGE_ALERT_SETTLE_MS: '', BRIDGE_ALERT_COOLDOWN_MS: '' }
      await expect(startBridge({ home, dataDir, env, user: { plugins } })).rejects.toThrow(
        new RegExp(`^${`config file ${path}: ${want}; fix or remove the key, the file was left untouched`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
      )
      expect(readFileSync(path, 'utf8')).toBe(body)
    }
  })

  it('reads the same config.json keys as before, and the same environment variables win over them', async () => {
    const { home, dataDir } = dataDirWith(
      JSON.stringify({
        notify: {
          webpush: { subject: 'mailto:ops@example.com', insecure: true },
          ntfy: { url: 'https://ntfy.example/from-file', token: null },
          webhooks: [{ url: 'https://hooks.example/signed', secret: 'own' }, { url: 'https://hooks.example/plain' }, { url: '' }],
          settle_ms: 0,
        },
      }),
    )
    b = await startBridge({ home, dataDir, env: { BRIDGE_NTFY_URL: '', BRIDGE_WEBHOOK_URL: '', BRIDGE_WEBHOOK_SECRET: '' }, user: { plugins } })
    const channels = b.bridge.ctx.services.notifyChannels
    expect(channels.status('ntfy')).toEqual({ configured: true, detail: 'topic https://ntfy.example/…' })
    expect(channels.status('webhook')).toEqual({ configured: true, detail: 'https://hooks.example/…, https://hooks.example/… (unsigned)' })
    expect(b.bridge.state(notifyWebpush)!.notifier.insecure).toBe(true)
    await b.close()

    b = await startBridge({
      home,
      dataDir,
      env: { BRIDGE_NTFY_URL: ' https://ntfy.example/from-env ', BRIDGE_NTFY_TOKEN: 'tk', BRIDGE_WEBHOOK_URL: '', BRIDGE_WEBHOOK_SECRET: 'shared' },
      user: { plugins },
    })
    expect(b.bridge.ctx.services.notifyChannels.status('ntfy')).toEqual({ configured: true, detail: 'topic https://ntfy.example/… with a token' })
    // BRIDGE_WEBHOOK_SECRET signs the file's hooks that have no secret of their own.
    expect(b.bridge.ctx.services.notifyChannels.status('webhook')).toEqual({ configured: true, detail: 'https://hooks.example/…, https://hooks.example/…' })
    await b.close()

    // BRIDGE_WEBHOOK_URL replaces the file's list; BRIDGE_WEBPUSH_INSECURE is on only for 1.
    b = await startBridge({
      home,
      dataDir,
      env: { BRIDGE_WEBHOOK_URL: 'https://a.example/x, ,https://b.example/y', BRIDGE_WEBHOOK_SECRET: '', BRIDGE_WEBPUSH_INSECURE: 'yes' },
      user: { plugins },
    })
    expect(b.bridge.ctx.services.notifyChannels.status('webhook')).toEqual({ configured: true, detail: 'https://a.example/… (unsigned), https://b.example/… (unsigned)' })
    expect(b.bridge.state(notifyWebpush)!.notifier.insecure).toBe(false)
  })

  it('without a notify section every notifier starts unconfigured, saying which variable to set', async () => {
    b = await startBridge({ env: { BRIDGE_NTFY_URL: '', BRIDGE_WEBHOOK_URL: '' }, user: { plugins } })
    const channels = b.bridge.ctx.services.notifyChannels
    expect(channels.status('ntfy')).toEqual({ configured: false, detail: 'not configured: set BRIDGE_NTFY_URL (or notify.ntfy.url)' })
    expect(channels.status('webhook')).toEqual({ configured: false, detail: 'not configured: set BRIDGE_WEBHOOK_URL (or notify.webhooks)' })
    expect(b.bridge.state(notifyWebpush)!.notifier.insecure).toBe(false)
  })
})
