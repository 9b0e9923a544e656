// worktree.* against a real git repository.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { simProfile } from '../harness/sim.ts'
import { useSim } from './helpers.ts'

const T = 30000

describe('worktrees', () => {
  const { sim, home } = useSim()

  const makeRepo = (): string => {
    const repo = path.join(home(), 'repo')
    fs.mkdirSync(repo, { recursive: true })
    const git = (...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' })
    git('init', '-q', '-b', 'main')
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init')
    return repo
  }

  it(
    'not_git_worktree outside a repository',
    async () => {
      const r = await sim().call('worktree.list', { cwd: home() })
      expect(r.error?.code).toBe('not_git_worktree')
      expect((await sim().call('worktree.list', { cwd: 'relative/dir' })).error?.code).toBe('invalid_request')
    },
    T,
  )

  it(
    'lists, creates, opens and removes worktrees with real git',
    async () => {
      const repo = makeRepo()
      const ws = await sim().request('workspace.create', { cwd: repo })
      expect(ws.workspace.label).toBe('repo')
      expect(ws.workspace.worktree).toMatchObject({ repo_name: 'repo', repo_root: repo, checkout_path: repo, is_linked_worktree: false })
      const listed = await sim().request('worktree.list', { workspace_id: ws.workspace.workspace_id })
      expect(listed.source).toMatchObject({ repo_name: 'repo', repo_root: repo, source_checkout_path: repo, source_workspace_id: ws.workspace.workspace_id })
      expect(listed.worktrees).toEqual([
        {
          path: repo,
          is_bare: false,
          is_detached: false,
          is_prunable: false,
          is_linked_worktree: false,
          label: 'main',
          branch: 'main',
          open_workspace_id: ws.workspace.workspace_id,
        },
      ])

      const sub = await sim().subscribe([{ type: 'worktree.created' }, { type: 'worktree.removed' }, { type: 'workspace.closed' }])
      const target = path.join(home(), 'wt-feature')
      const created = await sim().request('worktree.create', { workspace_id: ws.workspace.workspace_id, branch: 'feature', path: target })
      expect(created.worktree).toMatchObject({ path: target, branch: 'feature', is_linked_worktree: true, open_workspace_id: created.workspace.workspace_id })
      expect(created.workspace.worktree).toMatchObject({ checkout_path: target, is_linked_worktree: true })
      expect(fs.existsSync(path.join(target, '.git'))).toBe(true)
      await sub.next((e) => e.event === 'worktree_created')

      const opened = await sim().request('worktree.open', { workspace_id: ws.workspace.workspace_id, branch: 'feature' })
      expect(opened.already_open).toBe(true)
      expect(opened.workspace.workspace_id).toBe(created.workspace.workspace_id)

      const removed = await sim().request('worktree.remove', { workspace_id: created.workspace.workspace_id })
      expect(removed).toEqual({ type: 'worktree_removed', workspace_id: created.workspace.workspace_id, path: target, forced: false })
      expect(fs.existsSync(target)).toBe(false)
      await sub.next((e) => e.event === 'worktree_removed' && e.data.forced === false)
      await sub.next((e) => e.event === 'workspace_closed' && e.data.workspace_id === created.workspace.workspace_id)
      expect((await sim().call('worktree.remove', { workspace_id: ws.workspace.workspace_id })).error?.code).toBe('not_linked_worktree')
      sub.close()
    },
    T,
  )
  it(
    'closing a primary workspace: its worktree workspaces stay open, unless herdr 0.9 is asked for the group (close_group)',
    async () => {
      const repo = path.join(home(), 'grouped')
      fs.mkdirSync(repo, { recursive: true })
      execFileSync('git', ['-C', repo, 'init', '-q', '-b', 'main'])
      execFileSync('git', ['-C', repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init'])
      const open = async () => ((await sim().request('workspace.list', {})).workspaces as { workspace_id: string }[]).map((w) => w.workspace_id)
      const group = async (branch: string) => {
        const primary = (await sim().request('workspace.create', { cwd: repo })).workspace.workspace_id as string
        const linked = (await sim().request('worktree.create', { workspace_id: primary, branch, path: path.join(home(), `grouped-${branch}`) })).workspace.workspace_id as string
        return { primary, linked }
      }
      const plain = await group('one')
      await sim().request('workspace.close', { workspace_id: plain.primary })
      expect(await open()).not.toContain(plain.primary)
      expect(await open()).toContain(plain.linked)
      await sim().request('workspace.close', { workspace_id: plain.linked })

      const asked = await group('two')
      await sim().request('workspace.close', { workspace_id: asked.primary, close_group: true })
      expect(await open()).not.toContain(asked.primary)
      // herdr 0.8 has no close_group (the field is ignored): the worktree workspace stays.
      expect((await open()).includes(asked.linked)).toBe(!simProfile().closeGroup)
    },
    T,
  )
})
