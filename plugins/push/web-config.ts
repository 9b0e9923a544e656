import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { errField } from '../../lib/error-fields.ts'
import { isObj } from '../../lib/transcript/entry.ts'

/**
 * The web client's Firebase config, served by `GET /push-config` and `GET /firebase-config`
 * from `<data dir>/firebase-web.json`. The reference web client requires every key below as a
 * non-empty camelCase string; snake_case spellings in the file are accepted and converted.
 */

export const WEB_CONFIG_FILE = 'firebase-web.json'
export const WEB_CONFIG_KEYS = ['apiKey', 'authDomain', 'projectId', 'storageBucket', 'messagingSenderId', 'appId', 'vapidKey'] as const
const MAX_BYTES = 64 * 1024

export type WebConfig = Record<(typeof WEB_CONFIG_KEYS)[number], string> & { measurementId?: string }

export type WebConfigResult = { ok: true; config: WebConfig } | { ok: false; status: 404 | 503; message: string }

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

export function readWebConfig(dataDir: string): WebConfigResult {
  const path = join(dataDir, WEB_CONFIG_FILE)
  let raw: string
  try {
    if (statSync(path).size > MAX_BYTES) return { ok: false, status: 503, message: `${WEB_CONFIG_FILE} is over ${MAX_BYTES} bytes` }
    raw = readFileSync(path, 'utf8')
  } catch (err) {
    if (errField(err, 'code') === 'ENOENT') return { ok: false, status: 404, message: `web push is not configured on this bridge (no ${WEB_CONFIG_FILE} in its data dir)` }
    return { ok: false, status: 503, message: `${WEB_CONFIG_FILE} cannot be read` }
  }
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return { ok: false, status: 503, message: `${WEB_CONFIG_FILE} is not valid JSON` }
  }
  if (!isObj(json)) return { ok: false, status: 503, message: `${WEB_CONFIG_FILE} is not a JSON object` }
  const out: Record<string, string> = {}
  const missing: string[] = []
  for (const k of WEB_CONFIG_KEYS) {
    const v = json[k] ?? json[snake(k)]
    if (typeof v === 'string' && v.trim()) out[k] = v.trim()
    else missing.push(k)
  }
  if (missing.length) return { ok: false, status: 503, message: `${WEB_CONFIG_FILE} lacks ${missing.join(', ')}` }
  const m = json.measurementId ?? json.measurement_id
  if (typeof m === 'string' && m.trim()) out.measurementId = m.trim()
  return { ok: true, config: out as WebConfig }
}
