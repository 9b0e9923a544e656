import type { SessionSnapshot } from '../../lib/herdr/api.ts'
import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute, type PluginContext } from '../../core/plugin.ts'
import { qualifyId } from '../../core/herdr/index.ts'
import { queryFlag } from '../../lib/query.ts'
import { deriveRoots } from './roots.ts'
import { listDirectory, resolveBrowsePath } from './list.ts'

/**
 * Read-only directory browser.
 *   GET /browse?path=&hidden=1   directories only, confined to the derived roots; 403 outside,
 *                                404 missing inside a root; at most 500 entries (`truncated`).
 */

interface Space {
  dir: string
  workspaceId: string
}

/** The directory of every open space in every session; a session that fails is skipped. */
async function openSpaces(ctx: PluginContext): Promise<Space[]> {
  const out: Space[] = []
  const results = await Promise.allSettled(
    ctx.herdr.sessions().map(async (s) => ({ s, r: await ctx.herdr.call<{ snapshot?: Partial<SessionSnapshot> } | null>(s, 'session.snapshot', {}, { timeoutMs: 3000 }) })),
  )
  for (const res of results) {
    if (res.status !== 'fulfilled') continue
    const { s, r } = res.value
    const snap: Partial<SessionSnapshot> = r?.snapshot ?? {}
    for (const w of snap.workspaces ?? []) {
      const dir = w.worktree?.checkout_path || (snap.panes ?? []).find((p) => p.workspace_id === w.workspace_id && p.cwd)?.cwd
      if (typeof dir === 'string' && dir) out.push({ dir, workspaceId: qualifyId(s, w.workspace_id) })
    }
  }
  return out
}

export default defineBridgePlugin({
  name: 'browse',
  routes: [
    defineBridgeRoute({
      method: 'GET',
      path: '/browse',
      auth: 'device',
      describe: 'List the directories of a host folder inside the browsable roots',
      response: v.object({
        path: v.string(),
        parent: v.string(),
        is_repo: v.boolean(),
        open_workspace_id: v.string(),
        roots: v.array(v.object({ path: v.string(), label: v.string(), kind: v.picklist(['home', 'project']) })),
        entries: v.array(v.object({ name: v.string(), path: v.string(), is_repo: v.boolean(), is_symlink: v.boolean(), open_workspace_id: v.string() })),
        truncated: v.boolean(),
        limit: v.pipe(v.number(), v.integer()),
      }),
      query: v.object({ path: v.optional(v.string()), hidden: queryFlag('1 or true: list dot-directories too') }),
      async handler({ query, ctx }) {
        const spaces = await openSpaces(ctx)
        const roots = deriveRoots(
          ctx.home,
          spaces.map((s) => s.dir),
        )
        const dir = resolveBrowsePath(query.path || roots[0]?.path || ctx.home, roots)
        const openWorkspaces = new Map(spaces.map((s) => [s.dir, s.workspaceId]))
        return listDirectory(dir, roots, { hidden: query.hidden, openWorkspaces })
      },
    }),
  ],
})
