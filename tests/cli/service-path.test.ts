import { describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serviceSpec } from '../../cli/service.ts'
import { CliError } from '../../cli/errors.ts'
import { REPO_ROOT } from '../harness/bridge.ts'

/** What a service unit runs: a path that stays, never a copy in npx's cache. */
describe('service unit command', () => {
  it('in a clone: node and the clone’s cli/bin.mjs by absolute path', () => {
    const spec = serviceSpec({ addr: '127.0.0.1:9790', dir: '/data', env: { PATH: '/usr/bin', HOME: '/home/me' } })
    expect(spec.argv).toEqual([process.execPath, join(REPO_ROOT, 'cli/bin.mjs'), 'serve', '--dir', '/data', '--addr', '127.0.0.1:9790'])
  })

  it('a copy npx unpacked into its cache is refused in one line saying what to do', () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-'))
    const pkg = join(root, '.npm', '_npx', '8f2c1d', 'node_modules', 'herdr-bridge')
    mkdirSync(pkg, { recursive: true })
    try {
      expect(() => serviceSpec({ dir: '/data', env: { PATH: '/usr/bin', HOME: '/home/me' }, root: pkg })).toThrow(
        new CliError(
          `this bridge runs from npx's temporary folder (${pkg}), which npm may remove under a running service; install it with \`npm install -g herdr-bridge\` (or use a clone) and run \`bridge service install\` from there`,
        ),
      )
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
