import type { PluginContext } from '../../core/plugin.ts'
import { HerdrError, qualifyId } from '../../core/herdr/index.ts'
import { toHerdrKey } from '../../core/herdr/keys.ts'

/** The agent a control request targets, read fresh from herdr (never from a cache). */
export type FoundAgent = NonNullable<Awaited<ReturnType<typeof findAgent>>>

export async function findAgent(ctx: PluginContext, target: string) {
  try {
    const r = await ctx.herdr.getAgent(target)
    return r && { session: r.ref.session, qualified: qualifyId(r.ref.session, r.agent.pane_id || r.ref.id), agent: r.agent }
  } catch (err) {
    // An unknown session holds no such agent; /approve answers 200 for every lookup miss.
    if (err instanceof HerdrError && err.notFound) return null
    throw err
  }
}

/** The kind's confirm key when it is a key herdr knows, else Enter. */
export function confirmKey(ctx: PluginContext, kind: string | undefined): string {
  const configured = ctx.agentKinds.get(kind)?.screen?.confirmKey
  if (configured === undefined) return 'enter'
  const key = toHerdrKey(configured)
  if (!key) ctx.log.warn(`agent kind ${kind}: confirmKey ${JSON.stringify(configured)} is not a herdr key; pressing enter`)
  return key ?? 'enter'
}
