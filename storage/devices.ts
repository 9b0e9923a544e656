import { randomBytes } from 'node:crypto'
import type { Storage } from 'unstorage'
import { CorruptFileError } from '../lib/atomic-file.ts'
import { readJson, writeJson } from './json.ts'
import { safeEqual } from '../core/tokens.ts'
import { ROLES, type Role } from '../core/roles.ts'
import { bearerDigest, type RevocationJournal } from './revocations.ts'

export interface Device {
  id: string
  name: string
  bearer: string
  push_token: string
  paired_at: number
  last_seen?: number
  /** What the device may do (core/plugin.ts `Role`); a device paired before roles existed is `default`. */
  role: Role
}

const KEY = 'devices.json'
/** last_seen is best-effort: persisted at most this often per device, not per request. */
const LAST_SEEN_PERSIST_MS = 60_000

export interface DeviceStore {
  list(): Device[]
  get(id: string): Device | undefined
  /** Finds the device owning a bearer, comparing in constant time. */
  byBearer(bearer: string): Device | undefined
  add(input: { name?: string; push_token?: string; role?: Role }): Promise<Device>
  remove(id: string): Promise<Device | undefined>
  /** Changes a device's role or name; undefined for an unknown id. */
  update(id: string, change: { role?: Role; name?: string }): Promise<Device | undefined>
  setPushToken(id: string, token: string): Promise<void>
  upsertNamed(name: string, pushToken: string): Promise<Device>
  touch(id: string): void
  /** Push tokens are cleared when the provider says they are dead. */
  clearPushToken(token: string): Promise<void>
  flush(): Promise<void>
  /** A revocation in force but not yet on disk, in one line; null when the registry is saved. */
  unsaved(): string | null
  /** At shutdown: no more retries (the journal holds what was not saved). */
  stopRetrying(): void
}

export interface DeviceStoreOptions {
  /** Written before the registry on every revocation (storage/revocations.ts). */
  journal?: RevocationJournal
  /** Told when a revocation could not be saved (the line), and when it was saved after all (null). */
  onProblem?: (message: string | null) => void
  /** First delay before a failed revocation write is tried again; doubled up to 60 s. */
  retryMs?: number
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
      role: ROLES.includes(d.role) ? d.role : 'default',
    }
  })
}

export async function createDeviceStore(storage: Storage, opts: DeviceStoreOptions = {}): Promise<DeviceStore> {
  const stored = validate((await readJson<unknown>(storage, KEY, 'device registry')) ?? [])
  // A revocation journaled but never saved in the registry still holds (storage/revocations.ts).
  const journaled = opts.journal?.revoked() ?? new Set<string>()
  let devices = stored.filter((d) => !journaled.has(bearerDigest(d.bearer)))
  /** Revoked in this process: never listed again, whatever a write in flight held. */
  const revoked = new Set<string>()
  const persistedSeen = new Map<string, number>()
  let writing: Promise<void> = Promise.resolve()
  let problem: string | null = null
  let retryTimer: NodeJS.Timeout | undefined
  let retryDelay = opts.retryMs ?? 1000
  let stopped = false
  /** A registry without any revoked device is on disk: the journal and any retry are done. */
  const saved = (snapshot: Device[]) => {
    if (snapshot.some((d) => revoked.has(d.id) || journaled.has(bearerDigest(d.bearer)))) return
    if (journaled.size || revoked.size) opts.journal?.clear()
    journaled.clear()
    clearTimeout(retryTimer)
    retryTimer = undefined
    retryDelay = opts.retryMs ?? 1000
    if (problem) {
      problem = null
      opts.onProblem?.(null)
    }
  }
  /**
   * Writes are serialized so two quick changes cannot land out of order, and a change is kept
   * in memory only once it is on disk: a full disk refuses the pairing rather than handing out
   * a bearer that the next restart forgets.
   */
  const commit = (next: Device[]): Promise<void> => {
    const snapshot = next.map((d) => ({ ...d }))
    const p = writing.then(() => writeJson(storage, KEY, snapshot))
    writing = p.catch(() => {})
    return p.then(() => {
      devices = next.filter((d) => !revoked.has(d.id))
      saved(snapshot)
    })
  }
  const save = () => commit(devices)
  /** Saves the registry again until it works, each delay twice the last (at most 60 s). */
  const retryLater = () => {
    if (retryTimer || stopped) return
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      save().catch(() => {
        retryDelay = Math.min(retryDelay * 2, 60_000)
        retryLater()
      })
    }, retryDelay)
    retryTimer.unref()
  }
  // Devices the journal revoked are dropped from the registry on disk too, now or by a retry.
  if (devices.length !== stored.length)
    void save().catch((err) => {
      problem = `a journaled revocation could not be saved in the device registry (${codeOf(err)}); the device stays refused; retrying`
      opts.onProblem?.(problem)
      retryLater()
    })
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
    async add({ name, push_token, role }) {
      const d: Device = {
        id: newId(),
        name: name?.trim() ? name.trim().slice(0, 100) : 'device',
        bearer: randomBytes(32).toString('hex'),
        push_token: push_token ?? '',
        paired_at: Date.now(),
        role: role ?? 'default',
      }
      await commit([...devices, d])
      return d
    },
    async remove(id) {
      const d = devices.find((x) => x.id === id)
      if (!d) return undefined
      // Refused from this moment, whatever the disk does next (the caller closes its sockets).
      revoked.add(d.id)
      devices = devices.filter((x) => x.id !== id)
      let journal = ''
      try {
        opts.journal?.append(d, Date.now())
        if (opts.journal) journal = '; the revocation journal keeps it refused across a restart'
      } catch (err) {
        journal = `, nor the revocation journal (${codeOf(err)}): a restart before a retry succeeds would let it back in`
      }
      // Failing closed: the revocation stands in memory and the write is retried until it lands.
      await commit(devices).catch((err) => {
        problem = `device ${d.id} is revoked and refused, but the device registry could not be saved (${codeOf(err)})${journal}; retrying`
        opts.onProblem?.(problem)
        retryLater()
      })
      return d
    },
    async update(id, change) {
      const d = devices.find((x) => x.id === id)
      if (!d) return undefined
      const next: Device = { ...d, ...(change.role ? { role: change.role } : {}), ...(change.name?.trim() ? { name: change.name.trim().slice(0, 100) } : {}) }
      await commit(devices.map((x) => (x.id === id ? next : x)))
      return next
    },
    async setPushToken(id, token) {
      const d = devices.find((x) => x.id === id)
      if (!d || d.push_token === token) return
      await commit(devices.map((x) => (x.id === id ? { ...x, push_token: token } : x)))
    },
    async upsertNamed(name, pushToken) {
      const found = devices.find((x) => x.name === name)
      const d = found
        ? { ...found, push_token: pushToken }
        : { id: newId(), name, bearer: randomBytes(32).toString('hex'), push_token: pushToken, paired_at: Date.now(), role: 'default' as const }
      await commit(found ? devices.map((x) => (x.id === d.id ? d : x)) : [...devices, d])
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
      if (!token || !devices.some((d) => d.push_token === token)) return
      await commit(devices.map((d) => (d.push_token === token ? { ...d, push_token: '' } : d)))
    },
    flush: () => writing,
    unsaved: () => problem,
    stopRetrying() {
      clearTimeout(retryTimer)
      retryTimer = undefined
      stopped = true
    },
  }
}

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException)?.code ?? (err as Error)?.message ?? String(err)
