import { openSync, writeSync, closeSync } from 'node:fs'

/** Writes `lines` JSONL records made by `lineFor(i)` (i from 1), in batches of 5000 lines. */
export function writeJsonl(path: string, lines: number, lineFor: (i: number) => string): void {
  const fd = openSync(path, 'w')
  try {
    let batch: string[] = []
    for (let i = 1; i <= lines; i++) {
      batch.push(lineFor(i))
      if (batch.length === 5000) {
        writeSync(fd, batch.join('\n') + '\n')
        batch = []
      }
    }
    if (batch.length) writeSync(fd, batch.join('\n') + '\n')
  } finally {
    closeSync(fd)
  }
}

export const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`
