import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { REPO_ROOT } from '../harness/bridge.ts'
import { startServe } from '../kinds/serve-process.ts'
import { checkConfigFile, checkDataDir } from '../../storage/trust.ts'

/**
 * `serve --dir <a directory another user created or can write>` refuses to start, in one line
 * naming the path and the fix, and runs nothing from it: neither its bridge.config.mjs nor its
 * config.json's admin token. Ownership cases need root (to chown to another user), which CI has.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const BIN = join(REPO_ROOT, 'cli/bin.mjs')
const NOBODY = 65534
const me = userInfo()
let work: string
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bridge-trust-'))
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** A data dir holding a config that would leave a marker file if it were ever run. */
function plantedDir(name: string): { dir: string; marker: string } {
  const dir = join(work, name)
  mkdirSync(dir, { mode: 0o700 })
  const marker = join(work, `${name}.ran`)
  writeFileSync(join(dir, 'bridge.config.mjs'), `import { writeFileSync } from 'node:fs'\nwriteFileSync(${JSON.stringify(marker)}, 'ran')\nexport default { plugins: [] }\n`, {
    mode: 0o600,
  })
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ admin_token: 'a'.repeat(64) }), { mode: 0o600 })
  return { dir, marker }
}

const serve = (dir: string, args: string[] = []) =>
  execa(process.execPath, [BIN, 'serve', '--dir', dir, '--addr', '127.0.0.1:0', ...args], {
    env: { ...process.env, HOME: work, XDG_CONFIG_HOME: join(work, '.config'), BRIDGE_CONFIG: '', BRIDGE_DIR: '' },
    reject: false,
    timeout: 60_000,
  })

describe('judging the data dir', () => {
  it('passes a private dir with private files, and a missing one', () => {
    const { dir } = plantedDir('fine')
    expect(() => checkDataDir(dir)).not.toThrow()
    expect(() => checkDataDir(join(work, 'absent'))).not.toThrow()
  })

  it('names the path and the fix for each problem', () => {
    const a = plantedDir('open')
    chmodSync(a.dir, 0o777)
    expect(() => checkDataDir(a.dir)).toThrow(`${a.dir}: the directory is writable by others (mode 0777); fix: chmod go-w ${a.dir}`)
    const b = plantedDir('group-file')
    chmodSync(join(b.dir, 'config.json'), 0o620)
    expect(() => checkDataDir(b.dir)).toThrow(`${join(b.dir, 'config.json')}: the file is writable by its group (mode 0620); fix: chmod go-w ${join(b.dir, 'config.json')}`)
  })

  it.runIf(me.uid === 0)('refuses a dir or a file owned by another user', () => {
    const a = plantedDir('theirs')
    chownSync(a.dir, NOBODY, NOBODY)
    expect(() => checkDataDir(a.dir)).toThrow(
      `${a.dir}: the directory is owned by uid ${NOBODY}, not by you (${me.username}, uid 0); fix: chown ${me.username} ${a.dir}, or use a data dir of your own`,
    )
    const b = plantedDir('their-config')
    chownSync(join(b.dir, 'bridge.config.mjs'), NOBODY, NOBODY)
    expect(() => checkDataDir(b.dir)).toThrow(`${join(b.dir, 'bridge.config.mjs')}: the file is owned by uid ${NOBODY}`)
  })

  it('judges a --config file with its folder, except a sticky one like /tmp', () => {
    const folder = join(work, 'shared-folder')
    mkdirSync(folder)
    chmodSync(folder, 0o777)
    const file = join(folder, 'bridge.config.mjs')
    writeFileSync(file, 'export default { plugins: [] }\n', { mode: 0o644 })
    expect(() => checkConfigFile(file)).toThrow(`${folder}: the directory is writable by others (mode 0777); fix: chmod go-w ${folder}`)
    chmodSync(folder, 0o1777)
    expect(() => checkConfigFile(file)).not.toThrow()
  })
})

/** The error lines `bridge` printed (a warning about the Node version may come first). */
const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('bridge: '))

describe('bridge serve on a data dir it may not trust', () => {
  it.runIf(me.uid === 0)('another user’s dir: one line, exit 1, its config never runs', async () => {
    const { dir, marker } = plantedDir('serve-theirs')
    chownSync(dir, NOBODY, NOBODY)
    const r = await serve(dir)
    expect(r.exitCode).toBe(1)
    expect(errorLines(r.stderr)).toEqual([
      `bridge: refusing to start: ${dir}: the directory is owned by uid ${NOBODY}, not by you (${me.username}, uid 0); fix: chown ${me.username} ${dir}, or use a data dir of your own (--insecure-data-dir trusts it anyway)`,
    ])
    expect(existsSync(marker)).toBe(false)
  })

  it('a dir writable by others: one line, exit 1, its config never runs', async () => {
    const { dir, marker } = plantedDir('serve-open')
    chmodSync(dir, 0o777)
    const r = await serve(dir)
    expect(r.exitCode).toBe(1)
    expect(errorLines(r.stderr)).toEqual([
      `bridge: refusing to start: ${dir}: the directory is writable by others (mode 0777); fix: chmod go-w ${dir} (--insecure-data-dir trusts it anyway)`,
    ])
    expect(existsSync(marker)).toBe(false)
  })

  it('--insecure-data-dir starts anyway and says so in the log', async () => {
    const { dir, marker } = plantedDir('serve-insecure')
    chmodSync(dir, 0o777)
    rmSync(join(dir, 'bridge.config.mjs'))
    rmSync(join(dir, 'config.json'))
    const served = await startServe({
      bin: BIN,
      args: ['--insecure-data-dir'],
      env: { ...process.env, BRIDGE_DIR: dir, HOME: work, XDG_CONFIG_HOME: join(work, '.config'), BRIDGE_CONFIG: '' },
      cwd: work,
    })
    try {
      expect(served.log).toContain(`${dir}: the directory is writable by others (mode 0777); fix: chmod go-w ${dir} — trusted anyway (--insecure-data-dir)`)
    } finally {
      await served.stop()
    }
    expect(existsSync(marker)).toBe(false)
  })
})
