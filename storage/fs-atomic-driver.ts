import { defineDriver } from 'unstorage'
import { existsSync, readdirSync, rmSync, statSync, readFileSync } from 'node:fs'
import { join, resolve, relative, sep } from 'node:path'
import { writeFileAtomic } from '../lib/atomic-file.ts'

/**
 * unstorage's fs driver, but every write is temp file + rename with mode 0600, so the device
 * registry and timeline are never left half-written. Keys map to paths under `base`
 * (`a:b.json` → `base/a/b.json`) and may not climb out of it.
 */
export const fsAtomicDriver = defineDriver((opts: { base: string }) => {
  const base = resolve(opts.base)
  const pathOf = (key: string) => {
    const p = resolve(base, key.replace(/:/g, sep))
    if (p !== base && !p.startsWith(base + sep)) throw new Error(`storage key escapes the data dir: ${key}`)
    return p
  }
  const readText = (key: string) => {
    try {
      return readFileSync(pathOf(key), 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw err
    }
  }
  const walk = (dir: string): string[] => {
    if (!existsSync(dir)) return []
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = join(dir, e.name)
      if (e.isDirectory()) return walk(p)
      return e.name.endsWith('.tmp') ? [] : [relative(base, p).split(sep).join(':')]
    })
  }
  return {
    name: 'fs-atomic',
    options: opts,
    hasItem: (key) => existsSync(pathOf(key)),
    getItem: (key) => readText(key),
    getItemRaw: (key) => readText(key),
    setItem: (key, value) => writeFileAtomic(pathOf(key), value),
    setItemRaw: (key, value) => writeFileAtomic(pathOf(key), value),
    removeItem: (key) => rmSync(pathOf(key), { force: true }),
    getMeta: (key) => {
      try {
        const s = statSync(pathOf(key))
        return { mtime: s.mtime, size: s.size }
      } catch {
        return null
      }
    },
    getKeys: (b) => walk(b ? pathOf(b) : base),
    clear: (b) => {
      for (const key of walk(b ? pathOf(b) : base)) rmSync(pathOf(key), { force: true })
    },
  }
})
