import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { noControl } from '../../lib/strings.ts'
import { HerdrError } from '../../core/herdr/index.ts'
import { branchInfo, type WorktreeListResult } from './info.ts'
import { deleteBranch } from './delete.ts'

/**
 * Deleting a finished worktree's branch. Errors are JSON `{error}`.
 *   GET  /branch-info?workspace_id=               preflight while the space still exists
 *   POST /branch-delete {repo_root, branch, force?}   after worktree.remove; rules re-checked
 */
export default defineBridgePlugin({
  name: 'branches',
  routes: [
    defineBridgeRoute({
      method: 'GET',
      path: '/branch-info',
      auth: 'device',
      errors: 'json',
      describe: "What deleting a space's branch would do",
      response: v.object({
        workspace_id: v.string(),
        repo_root: v.string(),
        checkout_path: v.string(),
        branch: v.string(),
        default_branch: v.string(),
        is_default: v.boolean(),
        checked_out_elsewhere: v.array(v.string()),
        merged: v.boolean(),
        merged_into: v.string(),
        unmerged_commits: v.pipe(v.number(), v.integer()),
        upstream: v.string(),
        deletable: v.boolean(),
        blocked_reason: v.string(),
      }),
      query: v.object({
        workspace_id: v.pipe(v.optional(v.string(), ''), v.nonEmpty('want ?workspace_id=<workspace_id>'), v.description('workspace id, session-qualified (required)')),
      }),
      async handler({ query, ctx }) {
        const ref = await ctx.herdr.resolve(query.workspace_id)
        let list: WorktreeListResult | null
        try {
          list = await ctx.herdr.call<WorktreeListResult>(ref.session, 'worktree.list', { workspace_id: ref.id })
        } catch (err) {
          // Not a git worktree is an answer, not a failure.
          if (err instanceof HerdrError && err.code === 'not_git_worktree') list = null
          else throw err
        }
        return branchInfo(query.workspace_id, ref.id, list, { env: ctx.env })
      },
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/branch-delete',
      auth: 'device',
      errors: 'json',
      describe: 'Delete a local branch (never the remote one) after the safety rules',
      response: v.object({
        branch: v.string(),
        deleted: v.literal(true),
        forced: v.boolean(),
        merged: v.boolean(),
        merged_into: v.string(),
        sha: v.string(),
        upstream: v.string(),
        remote_deleted: v.literal(false),
      }),
      body: v.object({
        repo_root: v.pipe(v.string(), v.nonEmpty(), noControl('repo_root')),
        branch: v.pipe(v.string(), v.nonEmpty(), noControl('branch')),
        force: v.optional(v.boolean(), false),
      }),
      invalid: 'want {repo_root: string, branch: string, force?: bool}',
      handler: ({ body, ctx }) => deleteBranch(body, { env: ctx.env }),
    }),
  ],
})
