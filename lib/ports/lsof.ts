import { exec } from '../exec.ts'

/**
 * Listeners through `lsof -FpcnP` (hosts without /proc). Field lines: `p` pid, `c` command,
 * `n` name; a non-zero exit with output is still an answer.
 */
export function parseLsof(out: string): { pid: number; proc: string; bind: string; port: number }[] {
  const res: { pid: number; proc: string; bind: string; port: number }[] = []
  let pid = 0
  let proc = ''
  for (const line of out.split('\n')) {
    const tag = line[0]
    const val = line.slice(1)
    if (tag === 'p') pid = Number(val)
    else if (tag === 'c') proc = val
    else if (tag === 'n' && !val.includes('->')) {
      const i = val.lastIndexOf(':')
      if (i < 0) continue
      let host = val.slice(0, i).replace(/^\[|\]$/g, '')
      if (!host) host = '*'
      const port = Number(val.slice(i + 1))
      if (Number.isInteger(port)) res.push({ pid, proc, bind: host, port })
    }
  }
  return res
}

export async function lsofListeners() {
  const r = await exec('lsof', ['-nP', '-iTCP', '-sTCP:LISTEN', '-FpcnP'], { timeoutMs: 10_000 })
  if (r.exitCode !== 0 && !r.stdout.trim()) throw new Error(`lsof exited ${r.exitCode}: ${r.stderr.trim()}`)
  return parseLsof(r.stdout)
}

export async function psParents(): Promise<Map<number, number>> {
  const r = await exec('ps', ['-axo', 'pid=,ppid='], { timeoutMs: 10_000 })
  const m = new Map<number, number>()
  for (const line of r.stdout.split('\n')) {
    const [a, b] = line.trim().split(/\s+/).map(Number)
    if (a > 0) m.set(a, b)
  }
  return m
}
