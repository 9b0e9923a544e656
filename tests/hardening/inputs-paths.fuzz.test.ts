// Path confinement of GET /diff/expand and GET /browse under generated paths: `..` chains,
// absolute and encoded forms, NUL, very long and non-ASCII names, symlinks that lead out, loops
// and dangling links. Never a 500; a 200 only ever shows what lies under the allowed roots after
// realpath; a missing path is a 404 only when its existing part resolves inside (no probing).
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import fc from 'fast-check'
import { mkdirSync, writeFileSync, symlinkSync, realpathSync, readFileSync, rmSync } from 'node:fs'
import { dirname, basename, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { makeRepo, tempDir, numbered, type Repo } from '../diff/repo.ts'
import { agentPane } from '../diff/panes.ts'
import { errorLine } from '../../core/respond.ts'

let stack: Stack
let root: string
let projects: string
let outside: string
let repo: Repo
let home: string
let pane: string

beforeAll(async () => {
  stack = await startStack()
  home = realpathSync(stack.home)
  root = tempDir('paths-')
  projects = join(root, 'projects')
  outside = join(root, 'outside')
  mkdirSync(join(outside, 'present', 'deeper'), { recursive: true })
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET\n')
  repo = makeRepo({
    dir: join(projects, 'repo'),
    files: { 'src/a.txt': numbered(10), 'bin.dat': Buffer.from([0, 1, 2, 3]), 'é 日本/ü.txt': 'unicode\n', '..notes': 'dots\n', '...': 'three\n' },
  })
  const link = (target: string, at: string) => symlinkSync(target, join(repo.dir, at))
  link('../../outside/secret.txt', 'link-out')
  link(outside, 'dir-out')
  link('loop-b', 'loop-a')
  link('loop-a', 'loop-b')
  link('self', 'self')
  link('src/a.txt', 'in-link')
  link('.git/config', 'git-link')
  link('..', 'up')
  link('../../outside/nothing', 'dangling')
  symlinkSync(outside, join(home, 'out'))
  symlinkSync(join(home, 'loop'), join(home, 'loop'))
  symlinkSync(projects, join(home, 'proj'))
  symlinkSync(join(outside, 'gone'), join(home, 'dangling'))
  mkdirSync(join(home, 'work', 'é 日本'), { recursive: true })
  ;({ pane } = await agentPane(stack, repo.dir))
}, 60_000)
afterAll(async () => {
  await stack?.close()
  rmSync(root, { recursive: true, force: true })
})

const inside = (p: string, dir: string) => {
  const r = relative(dir, p)
  return r === '' || (r.split(sep)[0] !== '..' && !isAbsolute(r))
}

/** Where a path really lands: realpath of its deepest existing ancestor plus the rest. */
function landing(abs: string): string {
  const rest: string[] = []
  for (let at = resolve(abs); ; at = dirname(at)) {
    try {
      return join(realpathSync.native(at), ...rest.reverse())
    } catch {
      if (dirname(at) === at) return abs
      rest.push(basename(at))
    }
  }
}

const LONG = ['x'.repeat(255), 'y'.repeat(300), 'z'.repeat(2100)]
/** A path from segments, in one of the forms a client could send. */
function pathArb(segments: string[], prefixes: () => string[]) {
  const seg = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...segments) },
    { weight: 2, arbitrary: fc.constantFrom('..', '.', '', '%2e%2e', '%2E%2E%2F', '..%2f', '..\\..', '\0', 'a\0b', ' ', 'é', '日本', '😀', '\u202e', 'missing') },
    { weight: 1, arbitrary: fc.constantFrom(...LONG) },
    { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  )
  return fc
    .tuple(fc.constantFrom(...prefixes()), fc.array(seg, { maxLength: 8 }), fc.boolean())
    .map(([pre, segs, trailing]) => pre + segs.join('/') + (trailing ? '/' : ''))
    .filter((p) => p.length < 7000)
}

/** The URL for `path`: percent-encoded, or raw so the server's own decoding is exercised. */
function urlFor(route: string, params: Record<string, string>, path: string, raw: boolean): { url: string; sent: string | null } {
  const q = new URLSearchParams(params).toString()
  const p = raw ? path.replace(/[#&+]/g, (c) => encodeURIComponent(c)) : encodeURIComponent(path)
  const url = `${route}?${q}${q ? '&' : ''}path=${p}`
  // What the server sees after decoding, by the same URL rules.
  return { url, sent: new URL(url, 'http://x').searchParams.get('path') }
}

async function hit(url: string): Promise<{ status: number; body: string }> {
  const res = await stack.bridge.request(url)
  return { status: res.status, body: await res.text() }
}

function oneLine(r: { status: number; body: string }) {
  expect(r.body).not.toMatch(/\n\s+at /)
  if (r.status >= 400) expect(r.body.split('\n').filter(Boolean).length).toBeLessThanOrEqual(1)
}

describe('GET /diff/expand path confinement (property)', () => {
  it('never 500; a 200 is a text file inside the tree; a 404 is a path that lands inside it', async () => {
    const segs = [
      '..notes',
      '...',
      'src',
      'a.txt',
      'bin.dat',
      'link-out',
      'dir-out',
      'secret.txt',
      'present',
      'loop-a',
      'self',
      'in-link',
      'git-link',
      '.git',
      'config',
      'HEAD',
      'up',
      'repo',
      'dangling',
      'é 日本',
      'ü.txt',
      'outside',
      '..',
      '..',
      '..',
    ]
    const path = pathArb(segs, () => ['', '', '', './', '/', `${repo.dir}/`, `${outside}/`, '//', '../'])
    await fc.assert(
      fc.asyncProperty(path, fc.boolean(), async (p, raw) => {
        const { url, sent } = urlFor('/diff/expand', { pane }, p, raw)
        const r = await hit(url)
        oneLine(r)
        expect([url, [200, 400, 404, 415].includes(r.status)]).toEqual([url, true])
        if (!sent) {
          expect([url, r.status, r.body]).toEqual([url, 400, "bad path:  escapes the pane's tree"])
          return
        }
        if (r.status === 400) {
          // Control characters are refused at the door for every query parameter.
          expect([url, r.body]).toEqual([
            url,
            /[\u0000-\u001f\u007f]/.test(sent) ? 'path: control characters are not allowed' : errorLine(`bad path: ${sent} escapes the pane's tree`),
          ])
          return
        }
        expect(isAbsolute(sent) || sent.includes('\0')).toBe(false)
        const nominal = join(repo.dir, sent)
        if (r.status === 404) {
          expect([url, r.body]).toEqual([url, errorLine(`no such file: ${sent}`)])
          const land = landing(nominal)
          expect([url, inside(land, repo.dir) && !relative(repo.dir, land).split(sep).includes('.git')]).toEqual([url, true])
          return
        }
        const real = realpathSync(nominal)
        expect([url, inside(real, repo.dir), relative(repo.dir, real).split(sep).includes('.git')]).toEqual([url, true, false])
        if (r.status === 200) {
          const body = JSON.parse(r.body)
          expect(body.path).toBe(sent)
          const text = readFileSync(real, 'utf8')
          expect(body.lines).toEqual(text.slice(0, -1).split('\n').slice(0, 400))
          expect(r.body).not.toContain('TOP SECRET')
        } else expect(r.body).toBe(`not a text file: ${sent}`)
      }),
      {
        numRuns: 250,
        examples: [
          ['link-out', false],
          ['dir-out/secret.txt', false],
          ['dir-out/missing', false],
          ['dir-out/present/nope', true],
          ['dangling', false],
          ['loop-a/x', false],
          ['%2e%2e/outside/secret.txt', true],
          ['up/../outside/secret.txt', false],
          ['git-link', false],
          ['git-link/', false],
          ['in-link', false],
          ['..notes', false],
        ],
      },
    )
  }, 120_000)

  it('a symlink out of the tree does not reveal which files exist behind it', async () => {
    // (`up/../x` is not among them: `..` is resolved lexically first, so that stays in the tree.)
    for (const p of ['dir-out/secret.txt', 'dir-out/no-such-file', 'dir-out/present/deeper', 'dir-out/present/nope/x', 'up/nowhere', 'up/repo/../outside/secret.txt']) {
      const r = await hit(`/diff/expand?pane=${pane}&path=${encodeURIComponent(p)}`)
      expect([p, r.status, r.body]).toEqual([p, 400, errorLine(`bad path: ${p} escapes the pane's tree`)])
    }
    const r = await hit(`/diff/expand?pane=${pane}&path=src/nope`)
    expect([r.status, r.body]).toEqual([404, 'no such file: src/nope'])
    // A name that merely starts with `..` is inside (it was refused as an escape before).
    const dots = await hit(`/diff/expand?pane=${pane}&path=..notes`)
    expect([dots.status, JSON.parse(dots.body).lines]).toEqual([200, ['dots']])
  })
})

describe('GET /browse path confinement (property)', () => {
  let roots: string[]
  beforeAll(async () => {
    const r = await stack.bridge.request('/browse')
    expect(r.status).toBe(200)
    roots = (await r.json()).roots.map((x: { path: string }) => x.path)
    expect(roots).toEqual([home, projects])
  })
  const underRoots = (p: string) => roots.some((r) => inside(p, r))

  it('never 500; a 200 lists only directories under the roots after realpath; a 404 lands inside a root', async () => {
    const segs = [
      'out',
      'loop',
      'proj',
      'dangling',
      'work',
      'é 日本',
      'repo',
      'dir-out',
      'up',
      'self',
      'loop-a',
      'present',
      'deeper',
      '.git',
      'src',
      'projects',
      'outside',
      'etc',
      '..',
      '..',
      '..',
    ]
    const path = pathArb(segs, () => [`${home}/`, `${projects}/`, `${repo.dir}/`, `${outside}/`, `${root}/`, '/', '/etc/', '/proc/self/', '', 'relative/', '//'])
    await fc.assert(
      fc.asyncProperty(path, fc.boolean(), fc.boolean(), async (p, raw, hidden) => {
        const { url, sent } = urlFor('/browse', hidden ? { hidden: '1' } : {}, p, raw)
        const r = await hit(url)
        oneLine(r)
        expect([url, [200, 400, 403, 404].includes(r.status)]).toEqual([url, true])
        if (r.status === 400) {
          expect([url, r.body]).toEqual([url, sent && /[\u0000-\u001f\u007f]/.test(sent) ? 'path: control characters are not allowed' : 'path must be absolute'])
          return
        }
        // An empty path means the first root.
        if (!sent) {
          expect([url, r.status]).toEqual([url, 200])
          return
        }
        if (r.status === 404) {
          expect([url, underRoots(landing(sent))]).toEqual([url, true])
          return
        }
        if (r.status === 403) {
          expect([url, r.body]).toEqual([url, 'path is outside the browsable roots'])
          return
        }
        const body = JSON.parse(r.body)
        expect([url, underRoots(realpathSync(body.path))]).toEqual([url, true])
        expect(body.path).toBe(realpathSync(sent))
        if (body.parent) expect(underRoots(body.parent)).toBe(true)
        for (const e of body.entries) {
          expect([url, e.path, underRoots(realpathSync(e.path))]).toEqual([url, e.path, true])
          expect(dirname(e.path)).toBe(body.path)
        }
        expect(r.body).not.toContain('secret.txt')
      }),
      {
        numRuns: 250,
        examples: [
          [`${home}/out`, false, false],
          [`${home}/out/present`, false, true],
          [`${home}/out/nothing`, false, false],
          [`${home}/dangling`, false, false],
          [`${home}/loop/x`, false, false],
          [`${home}/proj/repo/dir-out`, false, false],
          [`${home}/%2e%2e`, true, false],
          [`${projects}/repo/up/../..`, false, false],
          [`${home}/..\\..`, false, false],
          [`${home}/..%2f`, false, false],
          [`${home}/out/`, false, false],
        ],
      },
    )
  }, 120_000)

  it('a symlink out of a root does not reveal which directories exist behind it', async () => {
    for (const p of [`${home}/out`, `${home}/out/present`, `${home}/out/absent`, `${home}/out/present/nope/x`, `${projects}/repo/dir-out/absent`]) {
      const r = await hit(`/browse?path=${encodeURIComponent(p)}`)
      expect([p, r.status, r.body]).toEqual([p, 403, 'path is outside the browsable roots'])
    }
    const r = await hit(`/browse?path=${encodeURIComponent(`${home}/absent`)}`)
    expect([r.status, r.body]).toEqual([404, 'no such directory'])
  })

  it('listings of a root show only links that stay inside the roots', async () => {
    const body = await (await stack.bridge.request(`/browse?path=${encodeURIComponent(home)}&hidden=1`)).json()
    const names = body.entries.map((e: { name: string }) => e.name)
    expect(names).toContain('proj')
    expect(names).toContain('work')
    for (const n of ['out', 'loop', 'dangling']) expect(names).not.toContain(n)
  })
})
