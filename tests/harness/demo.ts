/**
 * `npm run demo`: the herdr simulator with a few scripted agents, plus the bridge, so the API
 * can be tried without herdr. Everything lives in a temp HOME and stops on Ctrl+C.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { startSim } from './sim.ts'
import { REPO_ROOT } from './bridge.ts'

const home = mkdtempSync(join(tmpdir(), 'herdr-bridge-demo-'))
const repo = join(home, 'projects', 'demo-app')
mkdirSync(repo, { recursive: true })
const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 'demo', GIT_AUTHOR_EMAIL: 'demo@example.invalid', GIT_COMMITTER_NAME: 'demo', GIT_COMMITTER_EMAIL: 'demo@example.invalid' } })
git('init', '-q', '-b', 'main')
git('commit', '-q', '--allow-empty', '-m', 'init')
git('switch', '-q', '-c', 'feature/login')

const sim = await startSim({ home, sessions: ['default', 'work'], testMode: true, cwd: repo })
await sim.request('sim.create_agent_pane', { kind: 'claude', cwd: repo, label: 'needs approval', script: { start: 'permission', history: [{ role: 'user', text: 'Run the tests and fix what fails' }, { role: 'assistant', text: 'I will run the test suite first.' }] } })
await sim.request('sim.create_agent_pane', { kind: 'claude', cwd: repo, label: 'asks a question', script: { start: 'question' } })
await sim.request('sim.create_agent_pane', { kind: 'claude', cwd: repo, label: 'idle', script: { start: 'idle', default_reply: 'Done. Anything else?' } }, 'work')

const port = process.env.DEMO_PORT ?? '8787'
const dataDir = join(home, '.herdr-bridge')
const bridge = spawn(process.execPath, [join(REPO_ROOT, 'cli/bin.mjs'), 'serve', '--addr', `127.0.0.1:${port}`], {
  env: { ...process.env, ...sim.clientEnv(), BRIDGE_DIR: dataDir, BRIDGE_HERDR_BIN: sim.herdrBin, BRIDGE_SERVER_NAME: 'demo' },
  stdio: 'inherit',
})
console.log(`\ndemo HOME ${home}\nadmin token: see ${join(dataDir, 'config.json')}\npair a device:  BRIDGE_DIR=${dataDir} BRIDGE_ADDR=127.0.0.1:${port} npx bridge pair\n`)

const stop = async () => {
  bridge.kill('SIGTERM')
  await sim.stop().catch(() => {})
  rmSync(home, { recursive: true, force: true })
  process.exit(0)
}
process.on('SIGINT', () => void stop())
process.on('SIGTERM', () => void stop())
bridge.on('exit', () => void stop())
