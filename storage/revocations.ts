/**
 * The revocation journal: `<data dir>/revoked.jsonl`, one line per revoked device (its id and the
 * SHA-256 of its bearer, never the bearer), appended before the device registry is rewritten.
 * An append of one short line can succeed where rewriting the whole registry cannot (a nearly
 * full disk, a registry write that fails halfway); at start the registry is read through the
 * journal, so a revoked bearer stays refused after a restart even when the registry still lists
 * it. The journal is removed once the registry was written without any journaled device.
 */
import { appendFileSync, closeSync, fsyncSync, openSync, readFileSync, rmSync } from 'node:fs'
import { createHash } from 'node:crypto'

/** The calls behind the journal; fault tests swap `append` to simulate a full disk. */
export const journalIo = {
  append(path: string, line: string): void {
    appendFileSync(path, line, { mode: 0o600 })
    // On disk before the answer says the device is revoked.
    const fd = openSync(path, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  },
}

export const bearerDigest = (bearer: string) => createHash('sha256').update(bearer).digest('hex')

export interface RevocationJournal {
  path: string
  /** Bearer digests of every journaled revocation. */
  revoked(): Set<string>
  /** Throws when the line could not be written. */
  append(device: { id: string; bearer: string }, ts: number): void
  /** The registry no longer lists any journaled device: the journal has done its job. */
  clear(): void
}

export function createRevocationJournal(path: string): RevocationJournal {
  return {
    path,
    revoked() {
      let text = ''
      try {
        text = readFileSync(path, 'utf8')
      } catch {
        return new Set()
      }
      const out = new Set<string>()
      for (const line of text.split('\n')) {
        try {
          const j = JSON.parse(line) as { bearer_sha256?: unknown }
          if (typeof j.bearer_sha256 === 'string') out.add(j.bearer_sha256)
        } catch {
          // A line cut short by a crash names nothing; the lines before it still count.
        }
      }
      return out
    },
    append(device, ts) {
      journalIo.append(path, JSON.stringify({ ts, id: device.id, bearer_sha256: bearerDigest(device.bearer) }) + '\n')
    },
    clear() {
      rmSync(path, { force: true })
    },
  }
}
