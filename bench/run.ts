/**
 * `npm run bench [name…]`: runs each bench/<name>.ts module's `run()` in turn and writes what
 * they print to bench/results.md. Every benchmark measures its floor (raw git, raw file read,
 * raw socket round trip) in the same run and prints the ratio, so numbers compare across
 * machines.
 */
import { readdirSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { cpus, totalmem } from 'node:os'

const wanted = process.argv.slice(2)
const dir = import.meta.dirname
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => basename(f, '.ts'))
  .filter((n) => !wanted.length || wanted.includes(n))
  .sort()

const sections: string[] = []
const log = console.log
for (const name of names) {
  const mod = await import(`./${name}.ts`)
  if (typeof mod.run !== 'function') continue
  const out: string[] = []
  console.log = (...args: unknown[]) => {
    out.push(args.map(String).join(' '))
    log(...args)
  }
  log(`\n== ${name} ==`)
  const started = performance.now()
  try {
    await mod.run()
  } catch (err) {
    out.push(`FAILED: ${(err as Error).message}`)
    log(`bench ${name} failed:`, err)
  } finally {
    console.log = log
  }
  sections.push(`## ${name}\n\n\`\`\`\n${out.join('\n')}\n\`\`\`\n\n(${((performance.now() - started) / 1000).toFixed(1)} s)\n`)
}

if (!wanted.length) {
  const head = `# Benchmark results\n\nWritten by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB. Each ratio is against a floor measured in the same run.\n\n`
  writeFileSync(join(dir, 'results.md'), head + sections.join('\n'))
  log(`\nwrote ${join(dir, 'results.md')}`)
}
process.exit(0)
