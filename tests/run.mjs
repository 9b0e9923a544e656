#!/usr/bin/env node
// `npm test`: runs vitest with its JSON reporter beside the default one, then prints the closing
// line `N passed, M failed` that CI reads. Extra arguments go to vitest (e.g. a test path).
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

const out = join(tmpdir(), `vitest-results-${process.pid}.json`)
const r = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...process.argv.slice(2)], {
  stdio: 'inherit',
})
let passed = 0
let failed = 0
try {
  const res = JSON.parse(readFileSync(out, 'utf8'))
  passed = res.numPassedTests
  // A file that failed without a failed test (it did not load, or a beforeAll threw and its
  // tests were skipped) counts as a failure too, so a broken file cannot pass silently.
  failed = res.numFailedTests + (res.testResults ?? []).filter((f) => f.status === 'failed' && !f.assertionResults?.some((a) => a.status === 'failed')).length
  rmSync(out, { force: true })
} catch {
  failed = Math.max(failed, 1)
}
console.log(`${passed} passed, ${failed} failed`)
process.exit(r.status === 0 && failed === 0 ? 0 : 1)
