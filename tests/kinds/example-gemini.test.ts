/**
 * The out-of-tree kind in examples/agent-kind-gemini as a user gets it: `npm pack`ed from a copy,
 * installed from the tarball into a project outside the repo next to a link of the bridge, and
 * loaded by the config its README shows through `bridge serve --config`, against the simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { REPO_ROOT } from '../harness/bridge.ts'
import { installExample } from '../harness/as-installed.ts'
import { startSim, type Sim } from '../harness/sim.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'
import { connect } from '../transcript/ws-client.ts'
import { parseGeminiScreen } from '../../examples/agent-kind-gemini/screen.ts'
import { normalizeGeminiLine } from '../../examples/agent-kind-gemini/transcript.ts'
import { startServe, type Served } from './serve-process.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

const BIN = join(REPO_ROOT, 'cli/bin.mjs')
const SID = '8f2c1a90-5b7e-4d2a-9c11-3e4f5a6b7c8d'

const meta = JSON.stringify({ sessionId: SID, projectHash: 'abc', startTime: '2025-10-01T09:00:00.000Z', lastUpdated: '2025-10-01T09:00:00.000Z', kind: 'main' })
const user = (id: string, text: string, ts: string) => JSON.stringify({ id, timestamp: ts, type: 'user', content: [{ text }] })
const geminiMsg = (id: string, text: string, ts: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, timestamp: ts, type: 'gemini', content: text, model: 'gemini-2.5-pro', ...extra })

describe('gemini parser and normalizer (examples/agent-kind-gemini)', () => {
  it('reads the approval box: question, choices, the highlighted one, the tool line as context', () => {
    const screen = [
      '╭──────────────────────────────────────────────╮',
      '│ ?  Shell  npm test                            │',
      '│                                               │',
      "│ Allow execution of: 'npm'?                    │",
      '│                                               │',
      '│ ● 1. Allow once                               │',
      '│   2. Allow for this session                   │',
      '│   3. No, suggest changes (esc)                │',
      '╰──────────────────────────────────────────────╯',
    ].join('\n')
    expect(parseGeminiScreen(screen)).toEqual({
      question: "Allow execution of: 'npm'?",
      options: [
        { index: 1, label: 'Allow once', selected: true },
        { index: 2, label: 'Allow for this session', selected: false },
        { index: 3, label: 'No, suggest changes', selected: false },
      ],
      context: 'Shell  npm test',
    })
    expect(parseGeminiScreen('> type a message')).toBeNull()
  })

  it('records: messages, thoughts, tool calls with results; metadata and bookkeeping yield nothing', () => {
    expect(normalizeGeminiLine(meta)).toEqual([])
    expect(normalizeGeminiLine('{"$set":{"lastUpdated":"x"}}')).toEqual([])
    expect(normalizeGeminiLine('{"$rewindTo":"m1"}')).toEqual([])
    const call = {
      id: 'run_1',
      name: 'run_shell_command',
      args: { command: 'npm test' },
      status: 'success',
      timestamp: '2025-10-01T09:00:03.000Z',
      displayName: 'Shell',
      resultDisplay: '\x1b[32m12 passing\x1b[0m',
    }
    const line = geminiMsg('m2', 'Tests pass.', '2025-10-01T09:00:02.000Z', {
      thoughts: [{ subject: 'Checking', description: 'run the suite', timestamp: 'x' }],
      toolCalls: [call],
    })
    expect(normalizeGeminiLine(line)).toEqual([
      { id: 'm2#thoughts', ts: '2025-10-01T09:00:02.000Z', role: 'assistant', kind: 'thinking', text: 'Checking: run the suite', parsed: true },
      { id: 'm2', ts: '2025-10-01T09:00:02.000Z', role: 'assistant', kind: 'message', text: 'Tests pass.', parsed: true },
      {
        id: 'tool-run_1',
        ts: '2025-10-01T09:00:03.000Z',
        role: 'assistant',
        kind: 'tool_call',
        tool: { id: 'run_1', name: 'run_shell_command', title: 'Shell', command: 'npm test', input_summary: 'npm test' },
        parsed: true,
      },
      { id: 'result-run_1', ts: '2025-10-01T09:00:03.000Z', role: 'user', kind: 'tool_result', result: { for_id: 'run_1', ok: true, output_summary: '12 passing' }, parsed: true },
    ])
    expect(normalizeGeminiLine('nope')).toEqual([{ id: '', role: 'system', kind: 'message', parsed: false }])
  })
})

describe('an out-of-tree kind loaded with bridge serve --config', () => {
  let sim: Sim
  let bridge: Served
  let work: string
  let project: string
  let cwd: string
  let sessionFile: string

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'kind-gemini-'))
    const home = join(work, 'home')
    mkdirSync(home, { recursive: true })
    // The package as published, installed into a user's project with the bridge linked in.
    project = await installExample('agent-kind-gemini', work, ['README.md', 'index.ts', 'package.json', 'screen.ts', 'transcript.ts'])

    cwd = join(home, 'proj')
    mkdirSync(cwd, { recursive: true })
    const gemini = join(home, '.gemini')
    mkdirSync(join(gemini, 'tmp', 'proj', 'chats'), { recursive: true })
    writeFileSync(join(gemini, 'projects.json'), JSON.stringify({ projects: { [cwd]: 'proj' } }))
    sessionFile = join(gemini, 'tmp', 'proj', 'chats', `session-2025-10-01T09-00-${SID.slice(0, 8)}.jsonl`)
    writeFileSync(sessionFile, [meta, user('m1', 'Run the tests', '2025-10-01T09:00:01.000Z'), geminiMsg('m2', 'Running them now.', '2025-10-01T09:00:02.000Z')].join('\n') + '\n')

    sim = await startSim({ home, testMode: true })
    const env = { ...process.env, ...sim.clientEnv(), BRIDGE_DIR: join(work, 'data'), BRIDGE_HERDR_BIN: sim.herdrBin, GEMINI_CLI_HOME: '', BRIDGE_CONFIG: '' }
    // The bridge the project links, started from the project as its README says.
    bridge = await startServe({ bin: join(project, 'node_modules', 'herdr-bridge', 'cli', 'bin.mjs'), args: ['--config', './bridge.config.ts'], env, cwd: project })
    expect(bridge.log).toContain(`plugins from ${join(project, 'bridge.config.ts')}`)
    expect(bridge.log).toContain('kind-gemini')
  }, 180_000)

  afterAll(async () => {
    await bridge?.stop()
    await sim?.stop()
    rmSync(work, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
  })

  const get = <P extends keyof GetResponses>(path: P) => bridge.get(path)

  it('GET /agent-kinds lists the new kind next to the built-in ones', async () => {
    const { status, body } = await get('/agent-kinds')
    expect(status).toBe(200)
    expect(body.kinds.find((k) => k.kind === 'gemini')).toEqual({
      kind: 'gemini',
      card: true,
      mode_cycle: false,
      transcript: true,
      subagents: false,
      commands: false,
      usage: false,
      question: false,
    })
    expect(body.kinds.map((k) => k.kind)).toEqual(expect.arrayContaining(['claude', 'codex', 'opencode', 'pi', 'gemini']))
  })

  it('streams the gemini session of a pane: backlog, then the live tail', async () => {
    const pane = (await sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    await reportBusyAgent(sim, pane, { source: 'herdr:gemini', agent: 'gemini', state: 'working', agent_session_id: SID })
    const c = await connect(`${bridge.base.replace('http', 'ws')}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${bridge.token}`)
    expect(await c.next()).toEqual({
      type: 'hello',
      protocol: 5,
      pane,
      agent_kind: 'gemini',
      session_id: SID,
      backlog_count: 2,
      total: 2,
      has_more: false,
      oldest_loaded_seq: 1,
      has_older: false,
    })
    expect((await c.take(2)).map((f) => f.entry)).toEqual([
      { id: 'm1', seq: 1, ts: '2025-10-01T09:00:01.000Z', role: 'user', kind: 'message', text: 'Run the tests', parsed: true },
      { id: 'm2', seq: 2, ts: '2025-10-01T09:00:02.000Z', role: 'assistant', kind: 'message', text: 'Running them now.', parsed: true },
    ])
    expect(await c.next()).toEqual({ type: 'backlog_complete', count: 2, has_more: false })
    appendFileSync(sessionFile, geminiMsg('m3', 'All 12 tests pass.', '2025-10-01T09:00:09.000Z') + '\n')
    expect(await c.next()).toEqual({
      type: 'entry',
      live: true,
      entry: { id: 'm3', seq: 3, ts: '2025-10-01T09:00:09.000Z', role: 'assistant', kind: 'message', text: 'All 12 tests pass.', parsed: true },
    })
    c.close()
    const snap = await get('/snapshot')
    expect(snap.body.result.snapshot.agents.find((a) => a.pane_id === pane)!.last_activity_ts).toBe(Date.parse('2025-10-01T09:00:09.000Z'))
  })

  it('a config that is missing or not a plugin list stops the bridge with a one-line error', async () => {
    const bad = join(work, 'bad.config.mjs')
    writeFileSync(bad, 'export default { plugins: [42] }\n')
    const env = { ...process.env, BRIDGE_DIR: join(work, 'data2'), HOME: join(work, 'home') }
    const missing = await execa(process.execPath, [BIN, 'serve', '--config', join(work, 'nope.ts'), '--addr', '127.0.0.1:0'], { env, reject: false, timeout: 30_000 })
    expect(missing.exitCode).toBe(1)
    expect((missing.stderr + missing.stdout).trim()).toBe(`bridge: config file not found: ${join(work, 'nope.ts')} (from --config)`)
    const wrong = await execa(process.execPath, [BIN, 'serve', '--addr', '127.0.0.1:0'], { env: { ...env, BRIDGE_CONFIG: bad }, reject: false, timeout: 30_000 })
    expect(wrong.exitCode).toBe(1)
    expect((wrong.stderr + wrong.stdout).trim()).toBe(`bridge: config ${bad}: plugins[0] is not a plugin (want definePlugin({ name, … }) or [plugin, options])`)
  })
})
