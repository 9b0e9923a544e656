// Real terminals: reads return the real shell screen; send_text/keys/input write to the PTY;
// process_info reports real pids; a process exit removes the pane the way herdr does.
import { describe, expect, it } from 'vitest'
import { until } from '../harness/wait.ts'
import { useSim } from './helpers.ts'
import type { PaneReadResult } from '../../lib/herdr/api.ts'

const T = 30000

describe('pane I/O on real PTYs', () => {
  const { sim, home } = useSim()
  let pane = ''

  const read = async (source = 'recent', extra: Record<string, unknown> = {}): Promise<PaneReadResult> =>
    (await sim().request('pane.read', { pane_id: pane, source, ...extra })).read

  it(
    'pane.read returns the real shell output after send_text',
    async () => {
      const ws = await sim().request('workspace.create', { cwd: home() })
      pane = ws.root_pane.pane_id
      await sim().request('pane.send_text', { pane_id: pane, text: 'echo hello\r' })
      const r = await until(async () => {
        const got = await read()
        return /^hello$/m.test(got.text) ? got : undefined
      }, 'hello on screen')
      expect(r).toMatchObject({ pane_id: pane, workspace_id: 'w1', tab_id: 'w1:t1', source: 'recent', format: 'text', revision: 0, truncated: false })
      expect(r.text).toContain('$ echo hello\nhello\n')
      const visible = await read('visible')
      expect(visible.text).toContain('hello')
      const unwrapped = await read('recent_unwrapped')
      expect(unwrapped.text).toContain('hello')
    },
    T,
  )

  it(
    'recent honours lines and sets truncated; recent_unwrapped joins soft wraps',
    async () => {
      await sim().request('pane.send_text', { pane_id: pane, text: 'for i in $(seq 1 30); do echo line$i; done\r' })
      await until(async () => (await read()).text.includes('line30\n'), 'line30')
      const r = await read('recent', { lines: 5 })
      expect(r.truncated).toBe(true)
      expect(r.text.split('\n').filter(Boolean)).toHaveLength(5)
      const long = 'x'.repeat(200)
      await sim().request('pane.send_text', { pane_id: pane, text: `echo ${long}\r` })
      await until(async () => (await read('recent_unwrapped')).text.includes(`\n${long}\n`), 'unwrapped long line')
      expect((await read('recent')).text).not.toContain(`\n${long}\n`)
    },
    T,
  )

  it(
    'format ansi carries SGR colours',
    async () => {
      await sim().request('pane.send_text', { pane_id: pane, text: "printf '\\033[31mred\\033[0m\\n'\r" })
      await until(async () => /^red$/m.test((await read()).text), 'red')
      const ansi = await read('recent', { format: 'ansi' })
      expect(ansi.format).toBe('ansi')
      expect(ansi.text).toContain('\x1b[0;31mred\x1b[0m')
    },
    T,
  )

  it(
    'send_keys validates every key first: one bad key writes nothing',
    async () => {
      await sim().request('pane.send_text', { pane_id: pane, text: 'clear\r' })
      await until(async () => !(await read('visible')).text.includes('line30'), 'clear')
      const reply = await sim().call('pane.send_keys', { pane_id: pane, keys: ['e', 'c', 'h', 'o', 'home', 'enter'] })
      expect(reply.error).toEqual({ code: 'invalid_key', message: 'unsupported key home' })
      await sim().request('pane.send_keys', { pane_id: pane, keys: ['e', 'c', 'h', 'o', 'space', 'O', 'K', 'Enter'] })
      const screen = await until(async () => {
        const t = (await read('visible')).text
        return /^OK$/m.test(t) ? t : undefined
      }, 'OK')
      expect(screen).not.toMatch(/echohome|home/)
    },
    T,
  )

  it(
    'send_input sends text plus keys in one write',
    async () => {
      await sim().request('pane.send_input', { pane_id: pane, text: 'echo via-input', keys: ['Enter'] })
      await until(async () => /^via-input$/m.test((await read()).text), 'via-input')
    },
    T,
  )

  it(
    'process_info reports the shell and the foreground group',
    async () => {
      const idle = (await sim().request('pane.process_info', { pane_id: pane })).process_info
      expect(idle.pane_id).toBe(pane)
      expect(idle.shell_pid).toBeGreaterThan(1)
      expect(idle.foreground_process_group_id).toBe(idle.shell_pid)
      await sim().request('pane.send_text', { pane_id: pane, text: 'sleep 30\r' })
      const busy = await until(async () => {
        const info = (await sim().request('pane.process_info', { pane_id: pane })).process_info
        // The group changes at fork, before the child has exec'd `sleep`: wait for the name too.
        return info.foreground_process_group_id !== info.shell_pid && info.foreground_processes.some((p: { name: string }) => p.name === 'sleep') ? info : undefined
      }, 'sleep in foreground')
      expect(busy.foreground_processes.map((p: { name: string }) => p.name)).toContain('sleep')
      expect(busy.foreground_processes[0].cwd).toBe(home())
      await sim().request('pane.send_keys', { pane_id: pane, keys: ['ctrl+c'] })
      await until(async () => {
        const info = (await sim().request('pane.process_info', { pane_id: pane })).process_info
        return info.foreground_process_group_id === info.shell_pid
      }, 'shell back in foreground')
    },
    T,
  )

  it(
    'panes get herdr environment variables',
    async () => {
      await sim().request('pane.send_text', { pane_id: pane, text: 'echo "$HERDR_PANE_ID|$HERDR_WORKSPACE_ID|$HERDR_TAB_ID|$TERM|$COLORTERM|$HERDR_ENV"\r' })
      await until(async () => (await read()).text.includes(`${pane}|w1|w1:t1|xterm-256color|truecolor|1`), 'env echo')
    },
    T,
  )

  it(
    'a pane whose process exits emits pane_exited, no pane_closed, and disappears',
    async () => {
      const sub = await sim().subscribe([{ type: 'pane.exited' }, { type: 'pane.closed' }, { type: 'layout.updated' }, { type: 'pane.agent_detected' }])
      const split = await sim().request('pane.split', { target_pane_id: pane, direction: 'right' })
      const doomed = split.pane.pane_id
      await sim().request('sim.set_status', { pane_id: doomed, state: 'working', agent: 'custom-bot' })
      await sim().request('pane.send_text', { pane_id: doomed, text: 'exit\r' })
      const exited = await sub.next((e) => e.event === 'pane_exited' && e.data.pane_id === doomed)
      expect(exited.data).toEqual({ type: 'pane_exited', pane_id: doomed, workspace_id: 'w1' })
      const released = await sub.next((e) => e.event === 'pane_agent_detected' && e.data.pane_id === doomed && e.data.released)
      expect(released.data).toMatchObject({ agent: 'custom-bot', released: true, final_status: 'working' })
      await sub.next((e) => e.event === 'layout_updated' && e.data.layout.panes.length === 1)
      expect((await sim().call('pane.get', { pane_id: doomed })).error?.code).toBe('pane_not_found')
      expect(sub.events.some((e) => e.event === 'pane_closed' && e.data.pane_id === doomed)).toBe(false)
      sub.close()
    },
    T,
  )

  it(
    'killing the last pane removes its workspace silently',
    async () => {
      const ws = await sim().request('workspace.create', {})
      const sub = await sim().subscribe([{ type: 'pane.exited' }, { type: 'workspace.closed' }, { type: 'tab.closed' }])
      await sim().request('sim.kill_pane', { pane_id: ws.root_pane.pane_id })
      await sub.next((e) => e.event === 'pane_exited' && e.data.pane_id === ws.root_pane.pane_id)
      await until(async () => (await sim().call('workspace.get', { workspace_id: ws.workspace.workspace_id })).error?.code === 'workspace_not_found', 'workspace gone')
      // A marker exit after it: once the marker's event is in, anything the first exit emitted is too.
      const marker = await sim().request('workspace.create', { focus: false })
      await sim().request('sim.kill_pane', { pane_id: marker.root_pane.pane_id })
      await sub.next((e) => e.event === 'pane_exited' && e.data.pane_id === marker.root_pane.pane_id)
      expect(sub.events.some((e) => e.event === 'workspace_closed' && e.data.workspace_id === ws.workspace.workspace_id)).toBe(false)
      sub.close()
    },
    T,
  )
})
