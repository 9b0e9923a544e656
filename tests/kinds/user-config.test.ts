/**
 * Which user config `bridge serve` loads: `--config`, else BRIDGE_CONFIG, else
 * `<data dir>/bridge.config.{ts,js,mjs}`, else the built-in list. The choice is checked on
 * findUserConfig; the two loads no other test makes (a data-dir config and a working
 * BRIDGE_CONFIG) run on the real CLI, whose kind must then show in GET /agent-kinds.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findUserConfig } from '../../cli/user-config.ts'
import { REPO_ROOT } from '../harness/bridge.ts'
import { startServe } from './serve-process.ts'

// Each serve is a new node process: on a loaded 2-core machine start-up can take seconds.
vi.setConfig({ testTimeout: 120_000 })

const BIN = join(REPO_ROOT, 'cli/bin.mjs')

let work: string
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'user-config-'))
})
afterAll(() => rmSync(work, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }))

function dirWith(name: string, files: string[]): string {
  const d = join(work, name)
  mkdirSync(d, { recursive: true })
  for (const f of files) writeFileSync(join(d, f), 'export default {}\n')
  return d
}

describe('findUserConfig', () => {
  it('<data dir>/bridge.config.ts, then .js, then .mjs; a folder of that name is not a config', () => {
    const all = dirWith('all', ['bridge.config.ts', 'bridge.config.js', 'bridge.config.mjs'])
    expect(findUserConfig({ env: {}, dataDir: all })).toBe(join(all, 'bridge.config.ts'))
    const js = dirWith('js', ['bridge.config.js', 'bridge.config.mjs'])
    expect(findUserConfig({ env: {}, dataDir: js })).toBe(join(js, 'bridge.config.js'))
    const mjs = dirWith('mjs', ['bridge.config.mjs', 'bridge.config.cjs', 'bridge.config.json'])
    expect(findUserConfig({ env: {}, dataDir: mjs })).toBe(join(mjs, 'bridge.config.mjs'))
    const folder = dirWith('folder', [])
    mkdirSync(join(folder, 'bridge.config.ts'))
    expect(findUserConfig({ env: {}, dataDir: folder })).toBeUndefined()
    expect(findUserConfig({ env: {}, dataDir: join(work, 'absent') })).toBeUndefined()
  })

  it('--config beats BRIDGE_CONFIG, which beats the data dir; blank values count as unset', () => {
    const data = dirWith('data-order', ['bridge.config.mjs'])
    const flag = join(dirWith('flag', ['a.ts']), 'a.ts')
    const env = join(dirWith('env', ['b.mjs']), 'b.mjs')
    expect(findUserConfig({ flag, env: { BRIDGE_CONFIG: env }, dataDir: data })).toBe(flag)
    expect(findUserConfig({ env: { BRIDGE_CONFIG: env }, dataDir: data })).toBe(env)
    expect(findUserConfig({ flag: ' ', env: { BRIDGE_CONFIG: '  ' }, dataDir: data })).toBe(join(data, 'bridge.config.mjs'))
  })
})

/** A config adding one screen-only kind, importing the bridge by its package name. */
const kindConfig = (kind: string, ts: boolean) => `import { defineAgentKind, defineConfig, definePlugin, defaultPlugins } from 'herdr-bridge'
const kind${ts ? ': ReturnType<typeof defineAgentKind>' : ''} = defineAgentKind({ kind: '${kind}', screen: { parse: () => null } })
export default defineConfig({ plugins: [...defaultPlugins, definePlugin({ name: 'kind-${kind}', agentKinds: [kind] })] })
`

/** Runs `bridge serve` until it listens; returns its start-up log and the kinds it serves. */
async function serve(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<{ log: string; kinds: string[] }> {
  const env = { ...process.env, BRIDGE_DIR: dataDir, HOME: work, XDG_CONFIG_HOME: join(work, '.config'), BRIDGE_CONFIG: '', ...extraEnv }
  // cwd outside the repository: nothing may resolve `herdr-bridge` from the checkout's folder.
  const bridge = await startServe({ bin: BIN, env, cwd: work })
  try {
    const { status, body } = await bridge.get('/agent-kinds')
    expect(status).toBe(200)
    return { log: bridge.log, kinds: body.kinds.map((k: { kind: string }) => k.kind) }
  } finally {
    await bridge.stop()
  }
}

describe('bridge serve with a user config', () => {
  it('uses <data dir>/bridge.config.mjs when no config is named', async () => {
    const data = join(work, 'serve-data')
    mkdirSync(data, { recursive: true })
    writeFileSync(join(data, 'bridge.config.mjs'), kindConfig('datadirkind', false))
    const { log, kinds } = await serve(data)
    expect(log).toContain(`plugins from ${join(data, 'bridge.config.mjs')}: `)
    expect(log).toContain('kind-datadirkind')
    expect(kinds).toEqual(expect.arrayContaining(['claude', 'datadirkind']))
  })

  it('BRIDGE_CONFIG names a TypeScript config elsewhere, and it wins over the data dir', async () => {
    const data = join(work, 'serve-env')
    mkdirSync(data, { recursive: true })
    writeFileSync(join(data, 'bridge.config.mjs'), kindConfig('datadirkind', false))
    const file = join(work, 'elsewhere', 'my.config.ts')
    mkdirSync(join(work, 'elsewhere'), { recursive: true })
    writeFileSync(file, kindConfig('envkind', true))
    const { log, kinds } = await serve(data, { BRIDGE_CONFIG: file })
    expect(log).toContain(`plugins from ${file}: `)
    expect(kinds).toEqual(expect.arrayContaining(['claude', 'envkind']))
    expect(kinds).not.toContain('datadirkind')
  })
})
