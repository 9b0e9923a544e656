import { describe, expect, it, vi } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { REPO_ROOT } from '../harness/bridge.ts'

// npx starts npm, which starts node: seconds on a loaded 2-core machine.
vi.setConfig({ testTimeout: 120_000 })

/** The clone route of the README: `npx bridge …` with nothing installed globally. */

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))
// Under `npm test` npm passes its own npm_* settings down; the inner npx gets none of them.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')))

describe('in a clone', () => {
  for (const name of ['bridge', 'herdr-bridge']) {
    it(`npx --no-install ${name} --version runs this checkout`, async () => {
      const r = await execa('npx', ['--no-install', name, '--version'], { cwd: REPO_ROOT, env, extendEnv: false, reject: false })
      expect(r.exitCode, String(r.stderr)).toBe(0)
      expect(String(r.stdout)).toBe(version)
    })
  }

  it("the README's global install names this version's tarball, after npm ci", () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
    expect(readme).toContain(`\nnpm ci && npm pack && npm install -g ./herdr-bridge-${version}.tgz && bridge serve\n`)
  })
})
