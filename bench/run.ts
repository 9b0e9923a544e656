/**
 * `npm run bench [section…]`: runs each named bench/<section>.ts module's `run()` (all of them when
 * none is named) and merges what each prints into bench/results.md as its own section, replacing
 * only the sections run. Every benchmark measures its floor (raw git, raw file read, raw socket
 * round trip) in the same run and prints the ratio beside its target, so numbers compare across
 * machines. Exits 1 when a section failed, 2 on an unknown section name.
 * BENCH_RESULTS=<path> writes elsewhere (the merge reads that file too); BENCH_DIR=<dir> takes the
 * sections from another folder (the runner's own test).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { cpus, loadavg, totalmem } from 'node:os'
import { mergeResults, sectionBody, type RunRecord, type Section } from './_results.ts'

const dir = process.env.BENCH_DIR || import.meta.dirname
const results = process.env.BENCH_RESULTS || join(dir, 'results.md')
const valid = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => basename(f, '.ts'))
  .sort()
const wanted = process.argv.slice(2)
const unknown = wanted.filter((n) => !valid.includes(n))
if (unknown.length) {
  console.error(`bench: unknown section ${unknown.map((n) => `"${n}"`).join(', ')}; valid: ${valid.join(', ')}`)
  process.exit(2)
}

const log = console.log
let failed = 0
for (const name of wanted.length ? valid.filter((n) => wanted.includes(n)) : valid) {
  const printed: string[] = []
  const record: RunRecord = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}`,
    mem_gib: Math.round(totalmem() / 2 ** 30),
    load: Math.round((loadavg()[0] ?? NaN) * 100) / 100 || null,
    seconds: 0,
    status: 'ok',
  }
  log(`\n== ${name} ==`)
  const started = performance.now()
  console.log = (...args: unknown[]) => {
    printed.push(args.map(String).join(' '))
    log(...args)
  }
  try {
    const mod = await import(pathToFileURL(join(dir, `${name}.ts`)).href)
    if (typeof mod.run !== 'function') throw new Error(`bench/${name}.ts exports no run()`)
    await mod.run()
  } catch (err) {
    record.status = 'failed'
    failed++
    printed.push(`FAILED: ${(err as Error).message}`)
    log(`bench ${name} failed:`, err)
  } finally {
    console.log = log
  }
  record.seconds = Math.round(performance.now() - started) / 1000
  // Written after every section, so a run cut short keeps what it finished.
  const fresh: Section = { name, body: sectionBody(record, printed) }
  writeFileSync(results, mergeResults(existsSync(results) ? readFileSync(results, 'utf8') : '', [fresh]))
  log(`(${record.seconds.toFixed(1)} s) → ${results}`)
}
if (failed) log(`\n${failed} section(s) failed`)
process.exit(failed ? 1 : 0)
