import { randomBytes } from 'node:crypto'
import { hostname, homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { chmodSync, existsSync, mkdirSync } from 'node:fs'
import * as v from 'valibot'
import { CorruptFileError, readJsonFile, writeFileAtomic } from '../lib/atomic-file.ts'
import { configSection, configText, configTexts } from '../lib/config-schema.ts'

/** Defaults a user config (`bridge.config.ts`) gives keys of the on-disk config; the on-disk file and env win. */
export type ConfigDefaults = Partial<Pick<BridgeConfig, 'server_name' | 'transport'>>

export interface TransportConfig {
  mode: 'direct' | 'relay'
  /** host:port the daemon listens on. */
  addr: string
  /** URL clients use to reach the bridge, when it differs from `http://<addr>`. */
  public_url: string
  /** Extra CORS origins (exact scheme://host[:port]). */
  allowed_origins: string[]
  /** Host names requests may carry besides IP literals, localhost, this machine's name and public_url's host. */
  allowed_hosts: string[]
  /** URLs given to `bridge pair --url` (kept so their hosts stay allowed, core/host-check.ts). */
  pair_urls: string[]
  /** PEM certificate and key files: when both are set the bridge serves HTTPS and WSS itself. */
  tls_cert: string
  tls_key: string
}

/** The persisted config (`<data dir>/config.json`) after env overrides. */
export interface BridgeConfig {
  data_dir: string
  config_path: string
  admin_token: string
  server_id: string
  server_name: string
  transport: TransportConfig
  /** Path of the herdr CLI (BRIDGE_HERDR_BIN). */
  herdr_bin: string
  /**
   * config.json's top-level sections as read, for the plugins that own one, read through
   * core/plugin-config.ts: the alert plugins' `notify` (push: `settle_ms`, `cooldown_ms`;
   * notify-webpush: `webpush`; notify-ntfy: `ntfy`; notify-webhook: `webhooks`), notify-fcm's
   * `push`, a third-party notifier's `"slack": {…}`. The core's own keys are the fields above.
   */
  sections?: Readonly<Record<string, unknown>>
}

export const DEFAULT_ADDR = '127.0.0.1:8787'

/** The data dir: `--dir`, then BRIDGE_DIR, then ~/.herdr-bridge. */
export function resolveDataDir(dir?: string, env = process.env): string {
  return resolve(dir || env.BRIDGE_DIR || join(homedir(), '.herdr-bridge'))
}

const text = configText
const texts = configTexts
const section = configSection

/**
 * The core's keys of config.json, as the README's configuration table lists them. Other keys
 * are ignored here: a plugin's own section (`notify`, a third-party notifier's) is checked by
 * that plugin at start (core/plugin-config.ts).
 */
const ConfigFile = section({
  // Regenerated when missing or unusable, so any value passes here.
  admin_token: v.optional(v.unknown()),
  server_id: v.optional(v.unknown()),
  server_name: text,
  transport: v.nullish(
    section({
      mode: v.nullish(v.picklist(['direct', 'relay'], 'want "direct" or "relay"')),
      addr: text,
      public_url: text,
      allowed_origins: texts,
      allowed_hosts: texts,
      pair_urls: texts,
      tls_cert: text,
      tls_key: text,
    }),
  ),
})

/** The file's keys, checked: a wrong type is refused in one line naming the key. */
function checkConfigFile(raw: unknown, path: string): v.InferOutput<typeof ConfigFile> {
  const r = v.safeParse(ConfigFile, raw ?? {})
  if (r.success) return r.output
  const issue = r.issues[0]
  const key = issue.path?.map((p) => String(p.key)).join('.') || '(the file)'
  throw new CorruptFileError(`config file ${path}: ${key}: ${issue.message}; fix or remove the key, the file was left untouched`)
}

/** `loadConfig({ create: false })` found no config.json: the data dir was never initialised. */
export class ConfigMissing extends Error {}
/**
 * Loads `<dir>/config.json`, creating it (0600, in a 0700 dir) with a fresh admin token and
 * server id on first run. Env overrides are applied to the returned value, never persisted.
 * `create: 'later'` leaves a first run's file unwritten until `createConfigFile` (serve: once
 * its port is bound, so a busy port leaves no data dir behind).
 */
export function loadConfig(opts: { dir?: string; env?: NodeJS.ProcessEnv; create?: boolean | 'later'; defaults?: ConfigDefaults } = {}): BridgeConfig {
  const env = opts.env ?? process.env
  const dataDir = resolveDataDir(opts.dir, env)
  const configPath = join(dataDir, 'config.json')
  const onDisk = readJsonFile<Record<string, unknown>>(configPath, 'config file')
  if (!onDisk && opts.create === false) throw new ConfigMissing(`no config at ${configPath}: run \`bridge serve\` once to create it`)
  const checked = checkConfigFile(onDisk, configPath)
  const file: Record<string, unknown> = onDisk ?? {}
  let dirty = !onDisk
  if (typeof file.admin_token !== 'string' || !/^[0-9a-f]{16,}$/i.test(file.admin_token)) {
    file.admin_token = randomBytes(24).toString('hex')
    dirty = true
  }
  if (typeof file.server_id !== 'string' || !file.server_id) {
    file.server_id = randomBytes(8).toString('hex')
    dirty = true
  }
  if (dirty && (onDisk || opts.create !== 'later')) writeConfigFile(configPath, file)

  const d = opts.defaults ?? {}
  const t = checked.transport ?? {}
  const transport: TransportConfig = {
    mode: t.mode ?? d.transport?.mode ?? 'direct',
    addr: t.addr || d.transport?.addr || DEFAULT_ADDR,
    public_url: t.public_url || d.transport?.public_url || '',
    allowed_origins: list(t.allowed_origins ?? d.transport?.allowed_origins),
    allowed_hosts: list(t.allowed_hosts ?? d.transport?.allowed_hosts),
    pair_urls: list(t.pair_urls),
    tls_cert: t.tls_cert || d.transport?.tls_cert || '',
    tls_key: t.tls_key || d.transport?.tls_key || '',
  }
  const config: BridgeConfig = {
    data_dir: dataDir,
    config_path: configPath,
    admin_token: file.admin_token as string,
    server_id: file.server_id as string,
    server_name: checked.server_name || d.server_name || hostname() || 'herdr-bridge',
    transport,
    herdr_bin: 'herdr',
    sections: file,
  }
  return applyEnv(config, env)
}

/** Writes the config.json of a first run loaded with `create: 'later'`; nothing when the file exists. */
export function createConfigFile(config: BridgeConfig): void {
  if (!existsSync(config.config_path)) writeConfigFile(config.config_path, config.sections ?? {})
}

function writeConfigFile(path: string, file: Readonly<Record<string, unknown>>): void {
  const dataDir = dirname(path)
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  chmodSync(dataDir, 0o700)
  // Every key stays: the plugins' sections are theirs, not the core's to drop.
  writeFileAtomic(path, JSON.stringify(file, null, 2) + '\n')
}

/** Env wins over the file, for the core's keys (a plugin applies its own variables). Documented in the README's configuration table. */
export function applyEnv(c: BridgeConfig, env: NodeJS.ProcessEnv): BridgeConfig {
  if (env.BRIDGE_ADDR) c.transport.addr = env.BRIDGE_ADDR
  if (env.BRIDGE_MODE === 'relay' || env.BRIDGE_MODE === 'direct') c.transport.mode = env.BRIDGE_MODE
  if (env.BRIDGE_PUBLIC_URL) c.transport.public_url = env.BRIDGE_PUBLIC_URL
  if (env.BRIDGE_ADMIN_TOKEN) c.admin_token = env.BRIDGE_ADMIN_TOKEN
  if (env.BRIDGE_SERVER_NAME) c.server_name = env.BRIDGE_SERVER_NAME
  if (env.BRIDGE_ALLOWED_ORIGINS) c.transport.allowed_origins = [...c.transport.allowed_origins, ...list(env.BRIDGE_ALLOWED_ORIGINS.split(','))]
  if (env.BRIDGE_ALLOWED_HOSTS) c.transport.allowed_hosts = [...c.transport.allowed_hosts, ...list(env.BRIDGE_ALLOWED_HOSTS.split(','))]
  if (env.BRIDGE_HERDR_BIN) c.herdr_bin = env.BRIDGE_HERDR_BIN
  if (env.BRIDGE_TLS_CERT) c.transport.tls_cert = env.BRIDGE_TLS_CERT
  if (env.BRIDGE_TLS_KEY) c.transport.tls_key = env.BRIDGE_TLS_KEY
  return c
}

/** Saves keys back to config.json (used by `push login`); never writes env overrides. */
export function updateStoredConfig(configPath: string, patch: (file: Record<string, unknown>) => void): void {
  const file = readJsonFile<Record<string, unknown>>(configPath, 'config file') ?? {}
  patch(file)
  writeFileAtomic(configPath, JSON.stringify(file, null, 2) + '\n')
}

export function splitAddr(addr: string): { host: string; port: number } {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(addr.trim())
  if (!m) throw new Error(`bad listen address ${JSON.stringify(addr)}: want host:port`)
  return { host: m[1] || '127.0.0.1', port: Number(m[2]) }
}

function list(v: unknown): string[] {
  return Array.isArray(v) ? v.map((s) => (typeof s === 'string' ? s.trim() : '')).filter(Boolean) : []
}
