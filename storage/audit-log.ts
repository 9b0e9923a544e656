import { appendFile, rename, stat, rm } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * The audit log: one JSON line per request that changes something on the host, in
 * `<data dir>/audit.log`, rotated at 5 MiB keeping three old files. Typed text and file
 * contents are never written, only their length.
 */
export interface AuditEntry {
  ts: number
  device: string
  route: string
  pane?: string
  method?: string
  status: number
  text_length?: number
  bytes?: number
}

const MAX_BYTES = 5 * 1024 * 1024
const KEEP = 3

export function createAuditLog(dataDir: string, onError: (err: unknown) => void) {
  const path = join(dataDir, 'audit.log')
  let chain: Promise<void> = Promise.resolve()
  const rotate = async () => {
    const s = await stat(path).catch(() => null)
    if (!s || s.size < MAX_BYTES) return
    await rm(`${path}.${KEEP}`, { force: true })
    for (let i = KEEP - 1; i >= 1; i--) await rename(`${path}.${i}`, `${path}.${i + 1}`).catch(() => {})
    await rename(path, `${path}.1`)
  }
  return {
    path,
    record(entry: AuditEntry) {
      // Serialized so lines never interleave and rotation never races an append.
      chain = chain
        .then(rotate)
        .then(() => appendFile(path, JSON.stringify(entry) + '\n', { mode: 0o600 }))
        .catch(onError)
    },
    flush: () => chain,
  }
}
