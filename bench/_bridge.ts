import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import readline from 'node:readline'

export interface BridgeProc {
  pid: number
  url: string
  wsUrl: string
  token: string
  /** RSS after a full GC in the bridge, and its peak RSS since start or the last resetPeak(). */
  rss(): Promise<{ rss: number; peak: number }>
  resetPeak(): Promise<void>
  /** CPU time the bridge process has used so far (user + system), 10 ms resolution. */
  cpuMs(): number
  stop(): Promise<void>
}

/**
 * The real bridge in a process of its own (bench/_bridge-child.ts), HOME and data dir under
 * `home`, `env` over the harness's environment.
 */
export async function spawnBridge(home: string, env?: NodeJS.ProcessEnv): Promise<BridgeProc> {
  const args = [join(import.meta.dirname, '_bridge-child.ts'), home, ...(env ? [JSON.stringify(env)] : [])]
  const child = spawn(process.execPath, ['--expose-gc', '--import', import.meta.resolve('tsx'), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = readline.createInterface({ input: child.stdout! })
  const waiting: ((l: string) => void)[] = []
  lines.on('line', (l) => waiting.shift()?.(l))
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`the bridge process exited with ${code}`))))
  exited.catch(() => {})
  const nextLine = () => Promise.race([new Promise<string>((r) => waiting.push(r)), exited])
  const ready = await nextLine()
  const info = JSON.parse(ready.slice('ready '.length))
  return {
    ...info,
    pid: child.pid!,
    async rss() {
      child.stdin!.write('rss\n')
      const [, rss, peak] = (await nextLine()).split(' ')
      return { rss: Number(rss), peak: Number(peak) }
    },
    async resetPeak() {
      child.stdin!.write('reset-peak\n')
      await nextLine()
    },
    cpuMs() {
      // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 a second on Linux).
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ')
      return (Number(fields[11]) + Number(fields[12])) * 10
    },
    async stop() {
      if (child.exitCode !== null) return
      const gone = new Promise((r) => child.once('exit', r))
      child.stdin!.write('stop\n')
      await gone
    },
  }
}
