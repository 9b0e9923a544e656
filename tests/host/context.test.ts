import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startHostStack, until, type HostStack } from './helpers.ts'
import { makeCommandTree } from './fixtures.ts'
import { CLAUDE_BUILTINS } from '../../plugins/kind-claude/commands.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

type Command = GetResponses['/commands']['commands'][number]
type Port = GetResponses['/ports']['ports'][number]
type Suggestion = GetResponses['/suggestions']['suggestions'][number]

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' }).toString()

function makeRepo(dir: string): string {
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q')
  writeFileSync(join(dir, 'a.txt'), 'one\n')
  git(dir, 'add', '.')
  git(dir, 'commit', '-qm', 'init')
  return dir
}

/** A node HTTP server bound to `host` on a free port; prints `port=N` once listening. */
const serverCommand = (host: string) =>
  `node -e "require('http').createServer((q,s)=>s.end('hi from '+q.headers.host)).listen(0,'${host}',function(){console.log('port='+this.address().port)})"`

describe('context reads against the simulator', () => {
  let st: HostStack
  let dirty: string
  let conflicted: string
  let clean: string
  /** pane ids by role */
  const p: Record<string, string> = {}

  beforeAll(async () => {
    st = await startHostStack()
    const tree = makeCommandTree(join(st.home, 'cmds'))
    // The user scope is the bridge's HOME: move the tree's user files there.
    execFileSync('cp', ['-r', join(tree.home, '.claude'), st.home])
    dirty = makeRepo(join(st.home, 'dirty'))
    writeFileSync(join(dirty, 'a.txt'), 'two\n')
    writeFileSync(join(dirty, 'new.txt'), 'x\n')
    conflicted = makeRepo(join(st.home, 'conflicted'))
    git(conflicted, 'checkout', '-qb', 'other')
    writeFileSync(join(conflicted, 'a.txt'), 'theirs\n')
    git(conflicted, 'commit', '-qam', 'theirs')
    git(conflicted, 'checkout', '-q', 'main')
    writeFileSync(join(conflicted, 'a.txt'), 'ours\n')
    git(conflicted, 'commit', '-qam', 'ours')
    try {
      git(conflicted, 'merge', 'other')
    } catch {} // the conflict is the point
    clean = makeRepo(join(st.home, 'clean'))

    const open = async (cwd: string) => (await st.sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    p.project = await open(tree.project)
    p.dirty = await open(dirty)
    p.conflicted = await open(conflicted)
    p.idle = await open(clean)
    p.plain = await open(st.home)
    p.pi = await open(st.home)
    for (const pane of [p.project, p.dirty, p.conflicted]) await st.sim.request('pane.report_agent', { pane_id: pane, source: 'custom:test', agent: 'claude', state: 'idle' })
    await st.sim.request('pane.report_agent', { pane_id: p.pi, source: 'custom:test', agent: 'pi', state: 'idle' })
  })
  afterAll(() => st?.close())

  describe('GET /commands', () => {
    it('lists project, user and built-in claude commands read from disk', async () => {
      const r = await st.get(`/commands?pane=${p.project}`)
      expect(r.status).toBe(200)
      expect(r.body.pane).toBe(p.project)
      expect(r.body.agent_kind).toBe('claude')
      expect(r.body.commands.map((c: Command) => `${c.scope ?? 'builtin'}:${c.source}:${c.name}`).slice(0, 7)).toEqual([
        'project:command:a:b:too-deep',
        'project:command:deploy',
        'project:command:frontend:component',
        'project:command:plain',
        'project:skill:pdf-tools',
        'user:command:deploy',
        'user:skill:notes',
      ])
      expect(r.body.commands.length).toBe(7 + CLAUDE_BUILTINS.length)
      // Read on every request: a new file shows up at once.
      writeFileSync(join(st.home, '.claude/commands/fresh.md'), '---\ndescription: just added\n---\n')
      const again = await st.get(`/commands?pane=${p.project}`)
      expect(again.body.commands).toContainEqual({ name: 'fresh', description: 'just added', source: 'command', scope: 'user' })
    })

    it('gives an empty list for a kind without commands, 404 for plain and unknown panes, 400 without pane', async () => {
      expect(await st.get(`/commands?pane=${p.pi}`)).toMatchObject({ status: 200, body: { pane: p.pi, agent_kind: 'pi', commands: [] } })
      expect(await st.get(`/commands?pane=${p.plain}`)).toMatchObject({ status: 404, body: 'no agent in this pane' })
      expect(await st.get('/commands?pane=w9:p9')).toMatchObject({ status: 404, body: 'no such pane' })
      expect(await st.get('/commands')).toMatchObject({ status: 400, body: 'missing pane' })
    })
  })

  describe('GET /suggestions', () => {
    it('offers a review for a dirty repo with an agent', async () => {
      const r = await st.get(`/suggestions?pane=${p.dirty}`)
      expect(r).toMatchObject({ status: 200, body: { pane: p.dirty } })
      expect(r.body.suggestions).toEqual([
        { kind: 'git_dirty', performer: 'app', label: 'Review changes', detail: '2 files changed', action: 'open_diff', params: { pane: p.dirty }, rank: 20 },
      ])
    })

    it('lets git_conflict suppress the rest', async () => {
      const r = await st.get(`/suggestions?pane=${p.conflicted}`)
      expect(r.body.suggestions).toEqual([
        { kind: 'git_conflict', performer: 'app', label: 'Resolve', detail: 'merge in progress', action: 'open_diff', params: { pane: p.conflicted }, rank: 30 },
      ])
    })

    it('offers to start an agent in an idle shell inside a work tree, nothing outside one', async () => {
      const r = await st.get(`/suggestions?pane=${p.idle}`)
      expect(r.body.suggestions).toEqual([
        { kind: 'shell_idle', performer: 'app', label: 'Start an agent', detail: 'idle shell in clean', action: 'start_agent', params: { pane: p.idle }, rank: 10 },
      ])
      expect((await st.get(`/suggestions?pane=${p.plain}`)).body).toEqual({ pane: p.plain, suggestions: [] })
    })

    it('404s an unknown pane and 400s a missing one', async () => {
      expect(await st.get('/suggestions?pane=w9:p9')).toMatchObject({ status: 404 })
      expect(await st.get('/suggestions')).toMatchObject({ status: 400, body: 'missing pane' })
    })
  })

  describe('dev servers in panes', () => {
    it('finds a wide-bound server in /ports, attributes it to its pane and suggests opening it', async () => {
      const opened = await st.post('/pane/new', { split_from: p.plain, command: serverCommand('0.0.0.0') })
      const pane = opened.body.pane_id
      const port = Number(/port=(\d+)/.exec(await st.screenUntil(pane, (t) => /port=\d+/.test(t)))![1])
      const host = new URL(st.bridge.url).hostname
      const entry = await until(async () => (await st.get(`/ports?pane=${pane}`)).body.ports.find((x: Port) => x.port === port), 'the listener in /ports')
      expect(entry).toEqual({ port, bind: '*', pid: expect.any(Number), proc: 'node', loopback: false, pane, url: `http://${host}:${port}` })
      const all = (await st.get('/ports')).body.ports
      expect(all.find((x: Port) => x.port === port)).toEqual(entry)
      const s = await until(async () => (await st.get(`/suggestions?pane=${pane}`)).body.suggestions.find((x: Suggestion) => x.kind === 'dev_server'), 'a dev_server suggestion')
      expect(s).toEqual({
        kind: 'dev_server',
        performer: 'app',
        label: `Open :${port}`,
        detail: 'node · serving',
        action: 'open_url',
        params: { pane, url: `http://${host}:${port}`, port: String(port) },
        rank: 25,
      })
    })

    it('relays a loopback-only server, only to the holder of the one-time token', async () => {
      const opened = await st.post('/pane/new', { split_from: p.plain, command: serverCommand('127.0.0.1') })
      const pane = opened.body.pane_id
      const port = Number(/port=(\d+)/.exec(await st.screenUntil(pane, (t) => /port=\d+/.test(t)))![1])
      const s = await until(
        async () => (await st.get(`/suggestions?pane=${pane}`)).body.suggestions.find((x: Suggestion) => x.kind === 'dev_server_local'),
        'a dev_server_local suggestion',
      )
      expect(s).toMatchObject({ performer: 'app', label: `Open :${port}`, detail: 'node · via the bridge', action: 'open_url', rank: 15, params: { pane, port: String(port) } })
      const url = new URL(s.params.url)
      const token = url.searchParams.get('bridge_preview')!
      expect(token).toMatch(/^[0-9a-f]{64}$/)
      const base = `${url.protocol}//${url.host}`

      const bare = await fetch(`${base}/`)
      expect([bare.status, await bare.text()]).toEqual([401, 'unauthorized: open this preview from the app'])

      const first = await fetch(url, { redirect: 'manual' })
      expect(first.status).toBe(302)
      expect(first.headers.get('location')).toBe('/')
      const cookie = first.headers.get('set-cookie')!
      expect(cookie).toMatch(/^bridge_preview_\d+=[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Lax$/)

      const page = await fetch(`${base}/`, { headers: { cookie: cookie.split(';')[0] } })
      expect([page.status, await page.text()]).toEqual([200, `hi from localhost:${port}`])

      const replay = await fetch(url, { redirect: 'manual' })
      expect(replay.status).toBe(401)
    })
  })

  describe('GET /browse with open spaces', () => {
    it('adds the parent of a space outside home as a project root and marks the open space', async () => {
      const outside = realpathSync(mkdtempSync(join(tmpdir(), 'browse-space-')))
      try {
        mkdirSync(join(outside, 'proj/.git'), { recursive: true })
        mkdirSync(join(outside, 'other'))
        const ws = (await st.sim.request('workspace.create', { cwd: join(outside, 'proj') })).workspace.workspace_id
        const r = await st.get(`/browse?path=${encodeURIComponent(outside)}`)
        expect(r.status).toBe(200)
        expect(r.body.roots).toContainEqual({ path: outside, label: outside.split('/').pop(), kind: 'project' })
        expect(r.body.roots[0]).toEqual({ path: st.home, label: '~', kind: 'home' })
        expect(r.body.entries).toEqual([
          { name: 'other', path: join(outside, 'other'), is_repo: false, is_symlink: false, open_workspace_id: '' },
          { name: 'proj', path: join(outside, 'proj'), is_repo: true, is_symlink: false, open_workspace_id: ws },
        ])
        const inside = await st.get(`/browse?path=${encodeURIComponent(join(outside, 'proj'))}`)
        expect([inside.body.is_repo, inside.body.open_workspace_id, inside.body.parent]).toEqual([true, ws, outside])
        // The parent of the project root is not browsable.
        expect(await st.get(`/browse?path=${encodeURIComponent(tmpdir())}`)).toMatchObject({ status: 403 })
      } finally {
        rmSync(outside, { recursive: true, force: true })
      }
    })
  })
})
