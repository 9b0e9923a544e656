import { describe, it, expect } from 'vitest'
import { rmSync } from 'node:fs'
import { branchInfo, nothingToOffer } from '../../plugins/branches/info.ts'
import { tempDir, gitEnv } from '../diff/repo.ts'

describe('branchInfo without a server', () => {
  it("a git failure while inspecting is deletable:false with git's message, not an error", async () => {
    const dir = tempDir('not-a-repo-')
    try {
      const list = { source: { repo_root: dir }, worktrees: [{ path: `${dir}/wt`, branch: 'feat', is_linked_worktree: true, open_workspace_id: 'w3' }] }
      const info = await branchInfo('w3', 'w3', list, { env: gitEnv })
      expect(info).toMatchObject({ workspace_id: 'w3', repo_root: dir, branch: 'feat', deletable: false })
      expect(info.blocked_reason).toMatch(/^git (remote|for-each-ref|worktree) \.\.\.: fatal: not a git repository/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('no repo root reported, and no entry for the space', async () => {
    const list = { source: { repo_root: '' }, worktrees: [{ path: '/x', branch: 'feat', is_linked_worktree: true, open_workspace_id: 'w3' }] }
    expect(await branchInfo('s/w3', 'w3', list, { env: gitEnv })).toEqual(nothingToOffer('s/w3', 'herdr did not report a repo root for this space', '', '/x'))
    expect(await branchInfo('w4', 'w4', list, { env: gitEnv })).toEqual(nothingToOffer('w4', 'this space is not a git worktree'))
    expect(await branchInfo('w4', 'w4', null, { env: gitEnv })).toEqual(nothingToOffer('w4', 'this space is not a git worktree'))
  })
})
