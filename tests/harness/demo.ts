/**
 * `npm run demo`: the herdr simulator with scripted agents of several kinds in two repositories,
 * plus the bridge, so the product can be tried without herdr. It prints the pairing code, its QR
 * and the web app's address. Everything lives in a temp HOME and stops on Ctrl+C.
 *
 *   DEMO_PORT=8787 (default)   DEMO_ADDR=127.0.0.1 (use 0.0.0.0 or a tailnet address for a phone)
 */
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { renderUnicodeCompact } from 'uqr'
import { startSim } from './sim.ts'
import { REPO_ROOT } from './bridge.ts'
import type { AgentScript, ToolStep } from './fake-agents/script.ts'

const home = mkdtempSync(join(tmpdir(), 'herdr-bridge-demo-'))
const projects = join(home, 'projects')

// --- two repositories ---------------------------------------------------------------------

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'demo', GIT_AUTHOR_EMAIL: 'demo@example.invalid', GIT_COMMITTER_NAME: 'demo', GIT_COMMITTER_EMAIL: 'demo@example.invalid' }
const git = (repo: string, ...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore', env: gitEnv })
const write = (repo: string, file: string, text: string) => {
  mkdirSync(dirname(join(repo, file)), { recursive: true })
  writeFileSync(join(repo, file), text)
}

/** A 60-line module, so a change in its middle leaves context to expand on both sides. */
function checkoutModule(retries: string): string {
  const lines = [
    "import { charge } from './payments.ts'",
    "import { log } from './log.ts'",
    '',
    'export interface Order {',
    '  id: string',
    '  total: number',
    '  currency: string',
    '}',
    '',
  ]
  for (let i = 1; i <= 12; i++) lines.push(`export const STEP_${i} = 'step-${i}'`)
  lines.push('', 'export async function checkout(order: Order): Promise<string> {', retries, '}', '')
  for (let i = 1; i <= 24; i++) lines.push(`export function helper${i}(x: number): number {`, `  return x + ${i}`, '}')
  return lines.join('\n') + '\n'
}

const shopApi = join(projects, 'shop-api')
mkdirSync(shopApi, { recursive: true })
git(shopApi, 'init', '-q', '-b', 'main')
write(shopApi, 'README.md', '# shop-api\n\nOrders and payments.\n')
write(shopApi, 'src/checkout.ts', checkoutModule('  log(`checkout ${order.id}`)\n  return charge(order)'))
write(shopApi, 'src/payments.ts', 'export async function charge(order: { id: string }): Promise<string> {\n  return `paid ${order.id}`\n}\n')
git(shopApi, 'add', '-A')
git(shopApi, 'commit', '-q', '-m', 'Checkout and payments')
// A merged branch: the one the Branches view can delete.
git(shopApi, 'switch', '-q', '-c', 'fix/readme-typo')
write(shopApi, 'README.md', '# shop-api\n\nOrders and payments, with retries.\n')
git(shopApi, 'commit', '-q', '-am', 'README: mention retries')
git(shopApi, 'switch', '-q', 'main')
git(shopApi, 'merge', '-q', '--ff-only', 'fix/readme-typo')
// The branch being worked on, with real uncommitted changes for the Changes tab.
git(shopApi, 'switch', '-q', '-c', 'feature/checkout-retry')
write(
  shopApi,
  'src/checkout.ts',
  checkoutModule(
    '  log(`checkout ${order.id}`)\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try {\n      return await charge(order)\n    } catch (err) {\n      log(`attempt ${attempt} failed: ${String(err)}`)\n    }\n  }\n  throw new Error(`checkout ${order.id} failed after 3 attempts`)',
  ),
)
write(shopApi, 'src/retry.test.ts', "import { checkout } from './checkout.ts'\n\n// retries a failed charge three times\nvoid checkout\n")

const webApp = join(projects, 'web-app')
mkdirSync(webApp, { recursive: true })
git(webApp, 'init', '-q', '-b', 'main')
write(webApp, 'index.html', '<!doctype html>\n<title>shop</title>\n<main id="app"></main>\n')
write(webApp, 'src/theme.css', ':root {\n  --bg: #fff;\n  --fg: #111;\n}\n')
git(webApp, 'add', '-A')
git(webApp, 'commit', '-q', '-m', 'Shop front page')
git(webApp, 'switch', '-q', '-c', 'feature/dark-mode')
write(webApp, 'src/theme.css', ':root {\n  --bg: #fff;\n  --fg: #111;\n}\n\n@media (prefers-color-scheme: dark) {\n  :root {\n    --bg: #111;\n    --fg: #eee;\n  }\n}\n')

// --- agents ---------------------------------------------------------------------------------

const quiet = (t: ToolStep): ToolStep => ({ ...t, permission: false })
// One long task: it reads, edits, runs the tests, and starts over, so its transcript keeps growing.
const busy: AgentScript = {
  title: 'Retry failed checkouts',
  start: 'working',
  loop: true,
  work_ms: 4000,
  history: [{ role: 'user', text: 'Make checkout retry a failed charge up to three times, with a test.' }],
  subagent: { agent_id: 'a1b2c3d4', agent_type: 'Explore', description: 'Find every caller of charge()' },
  turns: [
    {
      tools: [
        quiet({ name: 'Read', input: { file_path: join(shopApi, 'src/checkout.ts') }, output: '60 lines' }),
        quiet({ name: 'Grep', input: { pattern: 'charge\\(', path: 'src' }, output: 'src/checkout.ts\nsrc/payments.ts' }),
        quiet({
          name: 'Edit',
          input: {
            file_path: join(shopApi, 'src/checkout.ts'),
            old_string: '  return charge(order)',
            new_string:
              '  for (let attempt = 1; attempt <= 3; attempt++) {\n    try {\n      return await charge(order)\n    } catch (err) {\n      log(`attempt ${attempt} failed`)\n    }\n  }',
          },
          output: 'The file src/checkout.ts has been updated.',
        }),
        quiet({ name: 'Bash', input: { command: 'npm test -- retry', description: 'Run the retry tests' }, output: '✓ retries a failed charge three times (3 ms)\n1 passed' }),
      ],
      reply: 'Checkout now retries a failed charge up to three times. Checking the other callers next.',
    },
  ],
}

const question: AgentScript = {
  title: 'Pick a retry strategy',
  start: 'question',
  history: [
    { role: 'user', text: 'Payments fail under load. Make them resilient.' },
    { role: 'assistant', text: 'There are two reasonable ways to do this.' },
  ],
  question: {
    header: 'Strategy',
    question: 'How should failed payments be retried?',
    options: [
      { label: 'Exponential backoff', description: 'Retry after 1 s, 2 s, 4 s' },
      { label: 'Queue and retry later', description: 'Park the order and retry from a worker' },
    ],
  },
  default_reply: 'Going with that. I will add the retry and a test.',
}

const done: AgentScript = {
  title: 'Release notes for 1.4',
  start: 'working',
  work_ms: 1500,
  history: [{ role: 'user', text: 'Write the release notes for 1.4 from the merged branches.' }],
  turns: [
    {
      tool: quiet({
        name: 'Bash',
        input: { command: 'git log --oneline main', description: 'List merged work' },
        output: 'a1c9e20 README: mention retries\n5f0b7d1 Checkout and payments',
      }),
      reply: 'Release notes are in CHANGELOG.md: two entries under 1.4.',
    },
  ],
}

const sim = await startSim({ home, sessions: ['default', 'work'], testMode: true, cwd: home, agentKinds: ['claude', 'pi', 'codex', 'opencode'] })
const create = (params: Record<string, unknown>, session?: string) => sim.request('sim.create_agent_pane', params, session)

// Completions while nobody looks at the desk become "done", as in herdr with the terminal unfocused.
await sim.request('sim.set_client_focus', { focused: false })
const main = (await create({ kind: 'claude', cwd: shopApi, label: 'shop-api', script: busy })).pane
await create({ kind: 'claude', cwd: shopApi, workspace_id: main.workspace_id, label: 'payments', script: question, focus: true })
await sim.request('pane.split', { target_pane_id: main.pane_id, direction: 'down', cwd: shopApi })
await create({
  kind: 'codex',
  cwd: webApp,
  label: 'web-app',
  script: {
    title: 'Dark mode toggle',
    history: [
      { role: 'user', text: 'Add a dark theme.' },
      { role: 'assistant', text: 'Added a prefers-color-scheme block to src/theme.css.' },
    ],
  },
})
await create({ kind: 'pi', cwd: projects, label: 'docs', script: done })
await create({ kind: 'opencode', cwd: webApp, label: 'web-app review', script: { title: 'Review the checkout page' } }, 'work')

// --- the bridge -----------------------------------------------------------------------------

const port = process.env.DEMO_PORT ?? '8787'
const host = process.env.DEMO_ADDR ?? '127.0.0.1'
const dataDir = join(home, '.herdr-bridge')
const bridge = spawn(process.execPath, [join(REPO_ROOT, 'cli/bin.mjs'), 'serve', '--addr', `${host}:${port}`], {
  env: {
    ...process.env,
    ...sim.clientEnv(),
    BRIDGE_DIR: dataDir,
    BRIDGE_HERDR_BIN: sim.herdrBin,
    BRIDGE_SERVER_NAME: 'demo',
    BRIDGE_LOG_LEVEL: process.env.BRIDGE_LOG_LEVEL ?? '2',
  },
  stdio: 'inherit',
})

let stopping = false
const stop = async (code = 0) => {
  if (stopping) return
  stopping = true
  bridge.kill('SIGTERM')
  await sim.stop().catch(() => {})
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  process.exit(code)
}
process.on('SIGINT', () => void stop())
process.on('SIGTERM', () => void stop())
bridge.on('exit', (code) => void stop(code ?? 0))

const local = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`
/** Waits for the bridge to answer, then asks it for a pairing code as `bridge pair` does. */
async function pairingCode(): Promise<{ code: string; url: string }> {
  const deadline = Date.now() + 60_000
  for (;;) {
    try {
      const admin = JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')).admin_token as string
      const res = await fetch(`${local}/admin/pairing`, { method: 'POST', headers: { authorization: `Bearer ${admin}` } })
      if (res.ok) return (await res.json()) as { code: string; url: string }
    } catch {
      // Not listening (or config.json not written) yet.
    }
    if (Date.now() > deadline) throw new Error(`the bridge did not start at ${local} within 60 s`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

try {
  const { code, url } = await pairingCode()
  const payload = JSON.stringify({ url, code })
  console.log(`
herdr-bridge demo: claude, codex, pi and opencode agents and a plain shell, in 2 repositories.

${renderUnicodeCompact(payload)}
Open the web app:  ${local}/#/pair?code=${code}
  (the code is filled in: press Pair)
Or pair a mobile client by scanning the QR code, or by hand:
  url:  ${url}
  code: ${code}   (valid 5 minutes, one use; another: npx bridge pair${port === '8787' ? '' : ` --addr 127.0.0.1:${port}`})
${host === '127.0.0.1' ? `\nThis listens on 127.0.0.1 only. For a phone: DEMO_ADDR=0.0.0.0 npm run demo (see "Reach it from your phone" in the README).\n` : ''}
Ctrl+C stops the demo and deletes ${home}.
`)
} catch (err) {
  console.error(`demo: ${(err as Error).message}`)
  await stop(1)
}
