// The benchmark runner (bench/run.ts) as a real process over sections in a temp folder: a run
// merges only its sections into results.md and records each one in the header, a failing section
// makes it exit 1, an unknown name is refused in one line before anything runs.
import { describe, test, expect, beforeEach, afterEach } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mergeResults, parseResults, recordOf } from '../../bench/_results.ts'

const RUNNER = join(import.meta.dirname, '../../bench/run.ts')
let dir: string

function runBench(...names: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', RUNNER, ...names], { env: { ...process.env, BENCH_DIR: dir }, cwd: join(import.meta.dirname, '../..') }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    )
  })
}

const results = () => readFileSync(join(dir, 'results.md'), 'utf8')

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bench-runner-'))
  writeFileSync(join(dir, 'alpha.ts'), `export async function run() { console.log('alpha ratio 0.50×   (target ≤ 1×)') }\n`)
  writeFileSync(join(dir, 'beta.ts'), `export async function run() { console.log('beta half done'); throw new Error('beta broke') }\n`)
  writeFileSync(join(dir, '_helper.ts'), `export const x = 1\n`)
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('bench/run.ts', () => {
  test('an unknown section is refused in one line naming the valid ones, and nothing is written', async () => {
    const r = await runBench('alpha', 'gamma')
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('bench: unknown section "gamma"; valid: alpha, beta\n')
    expect(r.stdout).toBe('')
    expect(existsSync(join(dir, 'results.md'))).toBe(false)
  }, 60_000)

  test('a run replaces only its sections; others keep their text, and the header records each run', async () => {
    writeFileSync(
      join(dir, 'results.md'),
      mergeResults('', [
        { name: 'alpha', body: 'old alpha figures' },
        {
          name: 'zeta',
          body: '<!-- run {"date":"2026-01-02T03:04:00.000Z","node":"v20.1.0","cpu":"2 × X","mem_gib":8,"load":0.5,"seconds":9,"status":"ok"} -->\n\nkept prose\n\n```\nzeta 1×\n```',
        },
      ]),
    )
    const r = await runBench('alpha')
    expect(r.code).toBe(0)
    const sections = parseResults(results())
    expect(sections.map((s) => s.name)).toEqual(['Targets', 'Runs', 'alpha', 'zeta'])
    const alpha = sections.find((s) => s.name === 'alpha')!
    expect(alpha.body).toMatch(/```\nalpha ratio 0\.50× {3}\(target ≤ 1×\)\n```$/)
    expect(alpha.body).not.toContain('old alpha figures')
    expect(recordOf(alpha.body)).toMatchObject({ node: process.version, status: 'ok' })
    expect(sections.find((s) => s.name === 'zeta')!.body).toContain('kept prose')
    const runs = sections.find((s) => s.name === 'Runs')!.body
    expect(runs).toContain('| zeta | 2026-01-02 03:04 | Node v20.1.0, 2 × X, 8 GiB | 0.5 | 9.0 s | ran |')
    expect(runs).toMatch(new RegExp(`\\| alpha \\| \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d \\| Node ${process.version}, `))
    expect(results()).toContain("| `/attach` throughput, 200 MB | the stand-in's own stdout | ≥ 0.8×; echo p50 ≤ floor + 2 ms |")
  }, 60_000)

  test('a failing section is written as failed and the run exits 1; the other sections still run', async () => {
    const r = await runBench()
    expect(r.code).toBe(1)
    const sections = parseResults(results())
    expect(sections.find((s) => s.name === 'alpha')!.body).toContain('alpha ratio 0.50×')
    const beta = sections.find((s) => s.name === 'beta')!
    expect(beta.body).toContain('beta half done\nFAILED: beta broke\n```')
    expect(recordOf(beta.body)?.status).toBe('failed')
    expect(sections.find((s) => s.name === 'Runs')!.body).toMatch(/\| beta \|.*\| \*\*FAILED\*\* \|/)
  }, 60_000)

  test('a "## " line inside a code fence is output, not a heading', () => {
    const text = mergeResults('', [{ name: 'one', body: '```\n## not a section\n```' }])
    expect(parseResults(text).map((s) => s.name)).toEqual(['Targets', 'Runs', 'one'])
  })
})

describe('mergeResults', () => {
  test('a prose section without a run record is kept after the benchmarks, and left out of the runs table', () => {
    const record = (name: string) =>
      `<!-- run {"date":"2026-11-24T10:00:00.000Z","node":"v20","cpu":"2 × cpu","mem_gib":24,"load":0.5,"seconds":1,"status":"ok"} -->\n\n\`\`\`\n${name} ratio 1×\n\`\`\``
    const first = mergeResults('', [{ name: 'zeta', body: record('zeta') }])
    const withNotes = `${first}\n## misses\n\nzeta misses its target because of the disk.\n`
    const merged = mergeResults(withNotes, [{ name: 'alpha', body: record('alpha') }])
    expect(parseResults(merged).map((s) => s.name)).toEqual(['Targets', 'Runs', 'alpha', 'zeta', 'misses'])
    expect(merged).toContain('## misses\n\nzeta misses its target because of the disk.\n')
    expect(merged).not.toMatch(/\| misses \|/)
    expect(merged).toMatch(/\| alpha \| 2026-11-24 10:00 \|/)
  })
})
