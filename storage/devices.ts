import { randomBytes } from 'node:crypto'
import type { Storage } from 'unstorage'
import { CorruptFileError } from './atomic-file.ts'
import { readJson, writeJson } from './index.ts'
import { safeEqual } from '../core/tokens.ts'

export interface Device {
  id: string
  name: string
  bearer: string
  push_token: string
  paired_at: number
  last_seen?: number
}

const KEY = 'devices.json'
/** last_seen is best-effort: persisted at most this often per device, not per request. */
const LAST_SEEN_PERSIST_MS = 60_000

export interface DeviceStore {
  list(): Device[]
  get(id: string): Device | undefined
  /** Finds the device owning a bearer, comparing in constant time. */
  byBearer(bearer: string): Device | undefined
  add(input: { name?: string; push_token?: string }): Promise<Device>
  remove(id: string): Promise<Device | undefined>
  setPushToken(id: string, token: string): Promise<void>
  upsertNamed(name: string, pushToken: string): Promise<Device>
  touch(id: string): void
  /** Push tokens are cleared when the provider says they are dead. */
  clearPushToken(token: string): Promise<void>
  flush(): Promise<void>
}

function validate(list: unknown): Device[] {
  if (!Array.isArray(list)) throw new CorruptFileError('device registry (devices.json in the data dir) is not a JSON array; fix or move it away, it was left untouched')
  return list.map((d, i) => {
    if (!d || typeof d.id !== 'string' || typeof d.bearer !== 'string' || !/^[0-9a-f]{64}$/.test(d.bearer)) {
      throw new CorruptFileError(`device registry (devices.json in the data dir): entry ${i} is malformed; fix or move the file away, it was left untouched`)
    }
    return {
      id: d.id,
      name: typeof d.name === 'string' && d.name ? d.name : 'device',
      bearer: d.bearer,
      push_token: typeof d.push_token === 'string' ? d.push_token : typeof d.fcm_token === 'string' ? d.fcm_token : '',
      paired_at: typeof d.paired_at === 'number' ? d.paired_at : 0,
      ...(typeof d.last_seen === 'number' ? { last_seen: d.last_seen } : {}),
    }
  })
}

export async function createDeviceStore(storage: Storage): Promise<DeviceStore> {
  let devices = validate((await readJson<unknown>(storage, KEY, 'device registry')) ?? [])
  const persistedSeen = new Map<string, number>()
  let writing: Promise<void> = Promise.resolve()
  // Writes are serialized so two quick changes cannot land out of order.
  const save = () => {
    const snapshot = devices.map((d) => ({ ...d }))
    writing = writing.then(() => writeJson(storage, KEY, snapshot))
    return writing
  }
  const newId = () => {
    let id: string
    do id = randomBytes(4).toString('hex')
    while (devices.some((d) => d.id === id))
    return id
  }
  return {
    list: () => devices.map((d) => ({ ...d })),
    get: (id) => devices.find((d) => d.id === id),
    byBearer(bearer) {
      let found: Device | undefined
      // Visit every device so the time taken does not say which one matched.
      for (const d of devices) if (safeEqual(d.bearer, bearer)) found = d
      return found
    },
    async add({ name, push_token }) {
      const d: Device = {
        id: newId(),
        name: name?.trim() ? name.trim().slice(0, 100) : 'device',
        bearer: randomBytes(32).toString('hex'),
        push_token: push_token ?? '',
        paired_at: Date.now(),
      }
      devices = [...devices, d]
      await save()
      return d
    },
    async remove(id) {
      const d = devices.find((x) => x.id === id)
      if (!d) return undefined
      devices = devices.filter((x) => x.id !== id)
      await save()
      return d
    },
    async setPushToken(id, token) {
      const d = devices.find((x) => x.id === id)
      if (!d || d.push_token === token) return
      d.push_token = token
      await save()
    },
    async upsertNamed(name, pushToken) {
      let d = devices.find((x) => x.name === name)
      if (!d) {
        d = { id: newId(), name, bearer: randomBytes(32).toString('hex'), push_token: pushToken, paired_at: Date.now() }
        devices = [...devices, d]
      } else d.push_token = pushToken
      await save()
      return d
    },
    touch(id) {
      const d = devices.find((x) => x.id === id)
      if (!d) return
      const now = Date.now()
      d.last_seen = now
      if (now - (persistedSeen.get(id) ?? 0) > LAST_SEEN_PERSIST_MS) {
        persistedSeen.set(id, now)
        void save().catch(() => {})
      }
    },
    async clearPushToken(token) {
      let changed = false
      for (const d of devices) if (token && d.push_token === token) ((d.push_token = ''), (changed = true))
      if (changed) await save()
    },
    flush: () => writing,
  }
}
