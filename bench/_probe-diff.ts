import { join } from 'node:path'
import { mkdtempSync, mkdirSync, writeFileSync, unlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { execFileSync } from 'node:child_process'
import { execa } from 'execa'
import { readGit } from '../core/git/status.ts'
const dir = mkdtempSync(join(tmpdir(), 'probe-'))
const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' }
const git = (...a: string[]) => execFileSync('git', a, { cwd: dir, env, stdio: 'pipe' })
git('init', '-q', '-b', 'main')
const body = (i: number, v: string) => Array.from({ length: 40 }, (_, l) => `// file ${i} line ${l} ${v}`).join('\n') + '\n'
const path = (i: number) => join(dir, `pkg${i % 50}`, `mod${Math.floor(i / 50) % 10}`, `f${i}.ts`)
for (let i = 0; i < 5000; i++) { mkdirSync(join(path(i), '..'), { recursive: true }); writeFileSync(path(i), body(i, 'v1')) }
git('add', '-A'); git('commit', '-q', '-m', 'i')
for (let i = 0; i < 250; i++) writeFileSync(path(i * 17), body(i * 17, 'v2').replace('line 20', 'line twenty'))
for (let i = 0; i < 20; i++) unlinkSync(path(i * 17 + 5))
for (let i = 0; i < 30; i++) writeFileSync(join(dir, `pkg${i}`, `new${i}.ts`), body(i, 'new'))
const ge = { ...env, GIT_OPTIONAL_LOCKS: '0' }
const floor = () => Promise.all([execa('git', ['status', '--porcelain=v2', '-z', '--untracked-files=all'], { cwd: dir, env: ge }), execa('git', ['diff', 'HEAD', '--no-color'], { cwd: dir, env: ge })])
const one = (a: string[]) => execa('git', a, { cwd: dir, env: ge })
const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]
const t = async (fn: () => Promise<unknown>) => { const s = performance.now(); await fn(); return performance.now() - s }
const r: Record<string, number[]> = { floor: [], read: [], ctx: [], status: [], diff: [], revparse: [], json: [] }
for (let i = 0; i < 30; i++) {
  r.floor.push(await t(floor))
  r.read.push(await t(() => readGit(dir, { diff: true })))
  r.ctx.push(await t(() => readGit(dir, {})))
  r.status.push(await t(() => one(['status', '--porcelain=v2', '-z', '--untracked-files=all'])))
  r.diff.push(await t(() => one(['diff', 'HEAD', '--no-color'])))
  r.revparse.push(await t(() => one(['rev-parse', '--show-toplevel'])))
  const x = await readGit(dir, { diff: true })
  r.json.push(await t(async () => JSON.stringify(x)))
}
for (const [k, v] of Object.entries(r)) console.log(k, med(v).toFixed(1))
rmSync(dir, { recursive: true, force: true })
