/**
 * `npm run bench [name…]`: runs each bench/<name>.ts module's `run()` in turn. Every benchmark
 * measures its floor (raw git, raw file read, raw socket round trip) in the same run and prints
 * the ratio, so numbers compare across machines.
 */
import { readdirSync } from 'node:fs'
import { basename } from 'node:path'

const wanted = process.argv.slice(2)
const dir = import.meta.dirname
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => basename(f, '.ts'))
  .filter((n) => !wanted.length || wanted.includes(n))
  .sort()

for (const name of names) {
  const mod = await import(`./${name}.ts`)
  if (typeof mod.run !== 'function') continue
  console.log(`\n== ${name} ==`)
  const started = performance.now()
  await mod.run()
  console.log(`(${name}: ${((performance.now() - started) / 1000).toFixed(1)} s)`)
}
process.exit(0)
