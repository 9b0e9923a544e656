import type { SavedBridge } from './bridges.ts'

/** The Firebase web config from `GET /push-config` (camelCase keys plus the VAPID key). */
export interface PushConfig {
  apiKey: string
  authDomain: string
  projectId: string
  storageBucket: string
  messagingSenderId: string
  appId: string
  vapidKey: string
  measurementId?: string
}

const KEYS = ['apiKey', 'authDomain', 'projectId', 'storageBucket', 'messagingSenderId', 'appId', 'vapidKey'] as const

/** Every key a non-empty string (as the reference web client requires), else null: push stays off. */
export function parsePushConfig(json: unknown): PushConfig | null {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return null
  const j = json as Record<string, unknown>
  const out: Record<string, string> = {}
  for (const k of KEYS) {
    const v = j[k]
    if (typeof v !== 'string' || !v.trim()) return null
    out[k] = v.trim()
  }
  if (typeof j.measurementId === 'string' && j.measurementId.trim()) out.measurementId = j.measurementId.trim()
  return out as unknown as PushConfig
}

/**
 * What this browser told its bridges: `on` once the person enabled push, and per paired device
 * (`<bridge key>/<device id>`, so a re-pairing counts as new) the token last registered there.
 */
export interface PushState {
  on: boolean
  sent: Record<string, string>
}

export const PUSH_STORE = 'herdr-bridge.push.v1'
/** The same state for standard Web Push (`sent` then holds subscription endpoints). */
export const WEBPUSH_STORE = 'herdr-bridge.webpush.v1'

export function loadPushState(storage: Pick<Storage, 'getItem'> = localStorage, key = PUSH_STORE): PushState {
  try {
    const raw = JSON.parse(storage.getItem(key) ?? '{}')
    const sent = raw?.sent && typeof raw.sent === 'object' ? Object.fromEntries(Object.entries(raw.sent).filter(([, v]) => typeof v === 'string')) : {}
    return { on: raw?.on === true, sent: sent as Record<string, string> }
  } catch {
    return { on: false, sent: {} }
  }
}

export function savePushState(s: PushState, storage: Pick<Storage, 'setItem'> = localStorage, key = PUSH_STORE): void {
  storage.setItem(key, JSON.stringify(s))
}

export const deviceKey = (b: Pick<SavedBridge, 'key' | 'device_id'>) => `${b.key}/${b.device_id ?? ''}`

/** The paired bridges that do not have `token` yet: new pairings, and all of them after a token change. */
export function bridgesToRegister<B extends Pick<SavedBridge, 'key' | 'device_id'>>(state: PushState, bridges: B[], token: string): B[] {
  return bridges.filter((b) => state.sent[deviceKey(b)] !== token)
}

/** Forgets bridges no longer paired, so a later pairing under the same key registers again. */
export function pruneSent(state: PushState, bridges: Array<Pick<SavedBridge, 'key' | 'device_id'>>): PushState {
  const keep = new Set(bridges.map(deviceKey))
  return { ...state, sent: Object.fromEntries(Object.entries(state.sent).filter(([k]) => keep.has(k))) }
}
