import type { Storage } from 'unstorage'
import { CorruptFileError } from '../lib/atomic-file.ts'

/**
 * Reads a JSON document from storage. A missing key is `null`; anything unparsable is an error
 * naming the file, so a corrupt store is never silently replaced by an empty one.
 */
export async function readJson<T>(storage: Storage, key: string, what: string): Promise<T | null> {
  const raw = await storage.getItemRaw(key)
  if (raw === null || raw === undefined) return null
  const text = typeof raw === 'string' ? raw : Buffer.from(raw as Uint8Array).toString('utf8')
  try {
    return JSON.parse(text) as T
  } catch (err) {
    throw new CorruptFileError(`${what} (${key} in the data dir) is not valid JSON: ${(err as Error).message}; fix or move it away, it was left untouched`)
  }
}

export async function writeJson(storage: Storage, key: string, value: unknown): Promise<void> {
  await storage.setItemRaw(key, JSON.stringify(value, null, 2) + '\n')
}
