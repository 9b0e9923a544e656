import { join } from 'node:path'
import { mkdtempSync, mkdirSync, writeFileSync, unlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { execFileSync } from 'node:child_process'
import { execa } from 'execa'
import { readGit } from '../core/git/status.ts'
import { runGit } from '../core/git/run.ts'
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
const S = ['status', '--porcelain=v2', '-z', '--untracked-files=all']
const D = ['diff', 'HEAD', '--no-color']
const floor = () => Promise.all([execa('git', S, { cwd: dir, env: ge }), execa('git', D, { cwd: dir, env: ge })])
const floorRun = () => Promise.all([runGit(dir, S, { env }), runGit(dir, D, { env })])
const floorMine = () => Promise.all([runGit(dir, ['status', '--porcelain=v2', '-z', '--branch', '--no-ahead-behind', '--untracked-files=all', '--find-renames'], { env }), runGit(dir, ['diff', 'HEAD', '--no-color', '--no-ext-diff', '--no-textconv', '--no-relative', '--find-renames', '--src-prefix=a/', '--dst-prefix=b/'], { env })])
const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]
const t = async (fn: () => Promise<unknown>) => { const s = performance.now(); await fn(); return performance.now() - s }
const ST = ['status', '--porcelain=v2', '-z', '--branch', '--no-ahead-behind', '--untracked-files=all', '--find-renames']
const DF = ['diff', 'HEAD', '--no-color', '--no-ext-diff', '--no-textconv', '--no-relative', '--find-renames', '--src-prefix=a/', '--dst-prefix=b/']
const variants: Record<string, () => Promise<unknown>> = {
  floor: () => Promise.all([execa('git', S, { cwd: dir, env: ge }), execa('git', D, { cwd: dir, env: ge })]),
  mine2: () => Promise.all([runGit(dir, ST, { env }), runGit(dir, DF, { env })]),
  mine5: () => Promise.all([runGit(dir, ST, { env }), runGit(dir, DF, { env }), runGit(dir, ['rev-parse', '--show-toplevel', '--git-dir'], { env }), runGit(dir, ['remote'], { env }), runGit(dir, ['for-each-ref', 'refs/heads/main'], { env })]),
  read: () => readGit(dir, { diff: true, env }),
  ctx: () => readGit(dir, { env }),
}
const r: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
for (let i = 0; i < 25; i++) for (const k of Object.keys(variants).sort(() => Math.random() - 0.5)) r[k].push(await t(variants[k]))
for (const [k, v] of Object.entries(r)) console.log(k, med(v).toFixed(1))
rmSync(dir, { recursive: true, force: true })
