// /ports names a process by its main thread's name (comm). Node 24 names its main thread
// `MainThread`, which would hide the program; the name then comes from the executable. A Python
// process that renames its main thread the same way (prctl PR_SET_NAME) stands in for Node 24
// here, so the rule is checked whatever Node runs the suite (CI also runs it on Node 24).
import { spawn } from 'node:child_process'
import { readFileSync, readlinkSync } from 'node:fs'
import { basename } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { processName } from '../../lib/ports/proc.ts'

const children: ReturnType<typeof spawn>[] = []
afterAll(() => {
  for (const c of children) c.kill('SIGKILL')
})

function renamed(name: string): Promise<number> {
  const script = `import ctypes, sys, time\nctypes.CDLL(None).prctl(15, ${JSON.stringify(name)}.encode(), 0, 0, 0)\nprint('ready', flush=True)\ntime.sleep(60)\n`
  const child = spawn('python3', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(child)
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child.pid!))
    child.once('error', reject)
  })
}

it('a process whose main thread is named MainThread is named by its executable', async () => {
  const pid = await renamed('MainThread')
  expect(readFileSync(`/proc/${pid}/comm`, 'utf8').trim()).toBe('MainThread')
  expect(processName(pid)).toBe(basename(readlinkSync(`/proc/${pid}/exe`)))
  expect(processName(pid)).toMatch(/^python3/)
})

it('any other main-thread name is kept (a script is named by itself, not its interpreter)', async () => {
  const pid = await renamed('my-server')
  expect(processName(pid)).toBe('my-server')
  // This test's own process: `node` whichever Node runs it (Node 24 names its main thread MainThread).
  expect(processName(process.pid)).toBe(basename(readlinkSync(`/proc/${process.pid}/exe`)))
})
