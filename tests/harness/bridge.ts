import { mkdtempSync, rmSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createConsola, type ConsolaInstance } from 'consola'
import { loadConfig } from '../../core/config.ts'
import { createBridge, type Bridge } from '../../core/server.ts'
import type { BridgeUserConfig } from '../../core/plugin.ts'
import type { ServerLimits } from '../../core/limits.ts'
import userConfig from '../../bridge.config.ts'

export const REPO_ROOT = resolve(import.meta.dirname, '../..')
export const FAKE_HERDR_BIN = join(REPO_ROOT, 'tests/harness/bin/herdr')

export interface TestBridge {
  bridge: Bridge
  url: string
  wsUrl: string
  home: string
  dataDir: string
  adminToken: string
  env: NodeJS.ProcessEnv
  /** fetch relative to the bridge with the admin token (pass `token: null` for none). */
  request(path: string, init?: RequestInit & { token?: string | null; json?: unknown }): Promise<Response>
  /** Pairs a new device through the real /admin/pairing + /pair flow. */
  pair(name?: string): Promise<{ id: string; bearer: string; name: string }>
  close(): Promise<void>
}

export interface StartBridgeOptions {
  /** HOME for the bridge (herdr discovery, ~/.claude …). A temp dir by default. */
  home?: string
  env?: NodeJS.ProcessEnv
  now?: () => number
  user?: BridgeUserConfig
  /** Extra keys written to config.json before start. */
  configFile?: Record<string, unknown>
  dataDir?: string
  /** Deadlines and connection caps, lowered by tests that exercise them. */
  limits?: Partial<ServerLimits>
  /** The bridge's logger (tests that read log lines pass one with a reporter). */
  log?: ConsolaInstance
}

/** Starts the real bridge in this process on a loopback port, with its own data dir. */
export async function startBridge(opts: StartBridgeOptions = {}): Promise<TestBridge> {
  const ownHome = !opts.home
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'bridge-home-'))
  const dataDir = opts.dataDir ?? join(home, '.herdr-bridge')
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  if (opts.configFile) {
    const { writeFileAtomic } = await import('../../lib/atomic-file.ts')
    writeFileAtomic(join(dataDir, 'config.json'), JSON.stringify(opts.configFile))
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_DATA_HOME: join(home, '.local/share'),
    CODEX_HOME: join(home, '.codex'),
    BRIDGE_HERDR_BIN: FAKE_HERDR_BIN,
    HERDR_SOCKET_PATH: '',
    // Alerts go out at once unless a test paces them (the daemon's defaults hold a flapping agent's back).
    BRIDGE_ALERT_SETTLE_MS: '0',
    BRIDGE_ALERT_COOLDOWN_MS: '0',
    ...opts.env,
  }
  const config = loadConfig({ dir: dataDir, env })
  config.transport.addr = '127.0.0.1:0'
  const log = opts.log ?? createConsola({ level: Number(process.env.BRIDGE_TEST_LOG ?? 1) }).withTag('bridge')
  const bridge = await createBridge({ config, user: opts.user ?? userConfig, log, now: opts.now, env, limits: opts.limits })
  const { url } = await bridge.listen()
  const request: TestBridge['request'] = (path, init = {}) => {
    const { token, json, ...rest } = init
    const headers = new Headers(rest.headers)
    const t = token === undefined ? config.admin_token : token
    if (t) headers.set('authorization', `Bearer ${t}`)
    if (json !== undefined) headers.set('content-type', 'application/json')
    return fetch(url + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body })
  }
  return {
    bridge,
    url,
    wsUrl: url.replace(/^http/, 'ws'),
    home,
    dataDir,
    adminToken: config.admin_token,
    env,
    request,
    async pair(name = 'phone') {
      const { code } = (await (await request('/admin/pairing', { method: 'POST' })).json()) as { code: string }
      const res = await request('/pair', { method: 'POST', token: null, json: { code, device_name: name } })
      if (res.status !== 200) throw new Error(`pairing failed: ${res.status} ${await res.text()}`)
      return (await res.json()) as { id: string; bearer: string; name: string }
    },
    async close() {
      await bridge.close()
      if (ownHome) rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
    },
  }
}
