/**
 * An unauthenticated flood of `POST /pair` with wrong codes for a minute (BENCH_FLOOD_S seconds),
 * from 16 keep-alive connections, against `bridge serve` in its own process: its RSS before, its
 * peak during (VmHWM), its RSS 10 s after, the CPU it still spends in those 10 s, and what the
 * audit log kept (docs/security.md, "The audit log").
 * The refusals are counted, not queued: the RSS after should be within a few MiB of before, and
 * the CPU after the flood near zero.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import { freePort, untilListening } from '../tests/harness/serve.ts'

/** VmRSS and VmHWM of a process, in bytes. */
function rssOf(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024
  return { rss: kb('VmRSS'), peak: kb('VmHWM') }
}

/** CPU time used so far (user + system), from /proc/<pid>/stat, in ms. */
function cpuMs(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`

export async function run(): Promise<void> {
  const seconds = Number(process.env.BENCH_FLOOD_S ?? 60)
  const home = mkdtempSync(join(tmpdir(), 'bench-flood-'))
  const dataDir = join(home, '.herdr-bridge')
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const env = { ...process.env, HOME: home, BRIDGE_DIR: dataDir, BRIDGE_CONFIG: '', XDG_CONFIG_HOME: join(home, '.config') }
  const child = spawn(process.execPath, [join(import.meta.dirname, '../cli/bin.mjs'), 'serve', '--addr', `127.0.0.1:${port}`], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const pid = child.pid!
  try {
    await untilListening(child, url).listening
    // A few requests first, so the "before" figure has the HTTP path warmed up.
    for (let i = 0; i < 5; i++) await (await fetch(`${url}/healthz`)).text()
    const before = rssOf(pid)
    const pool = new Pool(url, { connections: 16, pipelining: 1 })
    const statuses = new Map<number, number>()
    const until = Date.now() + seconds * 1000
    let sent = 0
    const body = JSON.stringify({ code: 'deadbeef', device_name: 'flood' })
    const worker = async () => {
      while (Date.now() < until) {
        const r = await pool.request({ path: '/pair', method: 'POST', headers: { 'content-type': 'application/json' }, body })
        await r.body.dump()
        sent++
        statuses.set(r.statusCode, (statuses.get(r.statusCode) ?? 0) + 1)
      }
    }
    await Promise.all(Array.from({ length: 16 }, worker))
    await pool.close()
    const during = rssOf(pid)
    const cpu0 = cpuMs(pid)
    await new Promise((r) => setTimeout(r, 10_000))
    const cpuAfter = cpuMs(pid) - cpu0
    const after = rssOf(pid)
    const size = (f: string) => {
      try {
        return statSync(join(dataDir, f)).size
      } catch {
        return 0
      }
    }
    const refusedLines = size('audit-refused.log') ? readFileSync(join(dataDir, 'audit-refused.log'), 'utf8').trim().split('\n').length : 0
    console.log(`flood: ${sent} POST /pair in ${seconds} s (${Math.round(sent / seconds)}/s), statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
    console.log(
      `RSS before ${mib(before.rss)}, peak during ${mib(during.peak)}, at the end ${mib(during.rss)}, 10 s later ${mib(after.rss)} (growth ${mib(after.rss - before.rss)})`,
    )
    console.log(`CPU in the 10 s after the flood: ${cpuAfter} ms`)
    console.log(`audit.log ${size('audit.log')} bytes; audit-refused.log ${size('audit-refused.log')} bytes, ${refusedLines} lines (written once a minute)`)
  } finally {
    const gone = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await gone
    rmSync(home, { recursive: true, force: true })
  }
}

if (process.argv[1] === import.meta.filename) await run()
