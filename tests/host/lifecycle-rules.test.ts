import { describe, expect, it } from 'vitest'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findOnPath, parseAgentUsage, parseStartHelp } from '../../plugins/agent-lifecycle/catalog.ts'
import { checkCwd, clampTimeout, deriveName } from '../../plugins/agent-lifecycle/rules.ts'

describe('kind catalog', () => {
  it('reads the possible values after --kind in `agent start --help`', () => {
    const help = [
      'Usage: herdr agent start [OPTIONS] --kind <KIND> <PANE>',
      '  --name <NAME>  agent name [possible values: nope]',
      '  --kind <KIND>',
      '          agent kind [possible values: pi, claude, codex, gemini]',
    ].join('\n')
    expect(parseStartHelp(help)).toEqual(['pi', 'claude', 'codex', 'gemini'])
    expect(parseStartHelp('no kind flag here')).toEqual([])
    expect(parseStartHelp('  --kind <KIND>\n  --other <X>  [possible values: a, b]')).toEqual([])
  })
  it('falls back to the kinds line of bare `agent`', () => {
    expect(parseAgentUsage('usage: herdr agent <command>\n  kinds: pi|claude|codex\n')).toEqual(['pi', 'claude', 'codex'])
  })
  it('finds executables on PATH only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'path-'))
    try {
      writeFileSync(join(dir, 'claude'), '#!/bin/sh\n')
      chmodSync(join(dir, 'claude'), 0o755)
      writeFileSync(join(dir, 'codex'), 'not executable')
      mkdirSync(join(dir, 'pi'))
      expect(findOnPath('claude', `/nonexistent:${dir}`)).toBe(join(dir, 'claude'))
      expect(findOnPath('codex', dir)).toBe('')
      expect(findOnPath('pi', dir)).toBe('')
      expect(findOnPath('claude', undefined)).toBe('')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('start rules', () => {
  it('derives a herdr-valid agent name from kind and pane', () => {
    expect(deriveName('claude', 'w1:p2')).toBe('claude-w1-p2')
    expect(deriveName('Claude', 'wA:pB')).toBe('claude-wa-pb')
    expect(deriveName('a-very-long-agent-kind-name', 'w123:p456').length).toBeLessThanOrEqual(32)
    expect(deriveName('x', 'w1:p1__')).toBe('x-w1-p1')
  })
  it('checks caller paths: absolute, canonical, existing directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cwd-'))
    try {
      writeFileSync(join(dir, 'f'), '')
      expect(checkCwd(dir)).toBeUndefined()
      expect(checkCwd('/')).toBeUndefined()
      expect(checkCwd('rel')).toBe('cwd must be an absolute path')
      expect(checkCwd(`${dir}/./x`)).toBe('cwd must be canonical (no ., .. or //)')
      expect(checkCwd(`/${dir}`)).toBe('cwd must be canonical (no ., .. or //)')
      expect(checkCwd(join(dir, 'f'))).toBe(`cwd is not a directory: ${join(dir, 'f')}`)
      expect(checkCwd(`${dir}\0`)).toBe('cwd must not contain NUL')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
  it('clamps the launch timeout to 5–300 s, default 60 s', () => {
    expect([clampTimeout(undefined), clampTimeout(1), clampTimeout(1e9), clampTimeout(20_000)]).toEqual([60_000, 5_000, 300_000, 20_000])
  })
})
