import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute, type PluginContext } from '../../core/plugin.ts'
import { fail } from '../../core/respond.ts'
import { HerdrError } from '../../core/herdr/index.ts'
import { readGit } from '../../lib/git/status.ts'
import { GitFailure } from '../../lib/git/run.ts'
import { readLayout } from '../../lib/git/layout.ts'
import { queryFlag } from '../../lib/query.ts'
import { expandCount, expandStart, EXPAND_MAX_LINES, readSlice } from './expand.ts'

/**
 * Working-tree changes of an agent pane.
 *   GET /diff?pane=&context=                     branch, git context, one diff per changed file
 *   GET /diff/expand?pane=&path=&start=&count=   unchanged lines of a working-tree file
 */
export default defineBridgePlugin({
  name: 'diff',
  routes: [
    defineBridgeRoute({
      method: 'GET',
      path: '/diff',
      auth: 'device',
      describe: "An agent pane's pending git changes",
      response: v.object({
        branch: v.string(),
        git: v.object({
          repo: v.boolean(),
          root: v.string(),
          branch: v.string(),
          default_branch: v.string(),
          default_ref: v.string(),
          remote: v.string(),
          upstream: v.string(),
          ahead: v.pipe(v.number(), v.integer()),
          behind: v.pipe(v.number(), v.integer()),
          dirty: v.boolean(),
          changed: v.pipe(v.number(), v.integer()),
          operation: v.optional(v.picklist(['merge', 'rebase', 'cherry-pick', 'revert'])),
        }),
        files: v.array(
          v.object({
            path: v.string(),
            old_path: v.optional(v.string()),
            status: v.picklist(['modified', 'added', 'deleted', 'renamed', 'untracked']),
            additions: v.pipe(v.number(), v.integer()),
            deletions: v.pipe(v.number(), v.integer()),
            diff: v.string(),
          }),
        ),
      }),
      query: v.object({
        pane: v.pipe(v.optional(v.string(), ''), v.nonEmpty('want ?pane=<pane_id>'), v.description('agent pane id, session-qualified (required)')),
        context: queryFlag('1 or true: the git context only, without the per-file diffs'),
      }),
      async handler({ query, ctx }) {
        const cwd = await agentCwd(ctx, query.pane)
        try {
          const read = await readGit(cwd, { diff: !query.context, env: ctx.env })
          return { branch: read.git.branch, git: read.git, files: read.files }
        } catch (err) {
          // Any git failure is one 502 body, `git status ...: <stderr>`, the diff half included.
          if (err instanceof GitFailure) fail(502, err.message.replace(/^git \S+ \.\.\.:/, 'git status ...:'))
          throw err
        }
      },
    }),
    defineBridgeRoute({
      method: 'GET',
      path: '/diff/expand',
      auth: 'device',
      describe: 'Lines of a working-tree file around a hunk',
      response: v.object({
        path: v.string(),
        start: v.pipe(v.number(), v.integer(), v.minValue(1)),
        lines: v.array(v.string()),
        eof: v.boolean(),
        total: v.pipe(v.number(), v.integer()),
      }),
      // Every 400 here has the bad-path body and every 404 the no-such-file body, a pane without an
      // agent included.
      query: v.pipe(
        v.object({
          pane: v.pipe(v.optional(v.string(), ''), v.description('agent pane id, session-qualified (required)')),
          path: v.pipe(v.optional(v.string(), ''), v.description("file path relative to the work tree's top level (required)")),
          // Out-of-range or unreadable values are clamped or defaulted, never refused.
          start: v.pipe(
            v.optional(v.string(), '1'),
            v.transform((s) => expandStart(s)),
            v.description('first line, 1-based (default 1)'),
          ),
          count: v.pipe(
            v.optional(v.string(), String(EXPAND_MAX_LINES)),
            v.transform((s) => expandCount(s)),
            v.description(`lines to read, 1..${EXPAND_MAX_LINES} (default ${EXPAND_MAX_LINES})`),
          ),
        }),
        v.check(
          (q) => !!q.pane && !!q.path,
          (issue) => `bad path: ${(issue.input as { path: string }).path} escapes the pane's tree`,
        ),
      ),
      async handler({ query, ctx }) {
        const { path } = query
        const cwd = await agentCwd(ctx, query.pane, `no such file: ${path}`)
        return readSlice(await treeOf(cwd, ctx), path, query.start, query.count)
      },
    }),
  ],
})

/** The agent's working directory; a pane without an agent (or unknown) is 404 with `notFound`. */
async function agentCwd(ctx: PluginContext, pane: string, notFound = 'no such agent'): Promise<string> {
  const found = await ctx.herdr.getAgent(pane).catch((err) => {
    if (err instanceof HerdrError && err.code === 'session_not_found') return null
    throw err
  })
  const cwd = found?.agent.cwd || found?.agent.foreground_cwd
  if (!found || !found.agent.agent || !cwd) fail(404, notFound)
  return cwd
}

/**
 * Paths in /diff are relative to the work tree's top level, which may sit above the cwd: the
 * layout /diff itself remembers, so an expand after a diff runs no git process.
 */
async function treeOf(cwd: string, ctx: PluginContext): Promise<string> {
  return (await readLayout(cwd, { env: ctx.env })).toplevel || cwd
}
