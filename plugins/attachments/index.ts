import * as v from 'valibot'
import { rename, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { defineBridgePlugin, defineBridgeRoute, type PluginContext, type RouteDef } from '../../core/plugin.ts'
import { fail, text } from '../../core/respond.ts'
import { HerdrError } from '../../core/herdr/index.ts'
import { sniffImage, sniffDocument, type Verdict } from './sniff.ts'
import { ensureDropDir, dropName, prune, DROP_DIR, type DropKind } from './drop-dir.ts'
import { receiveToFile, OverCap } from './receive.ts'

/**
 * Attachments dropped into a pane's tree (spec 1 §4.3). Raw `application/octet-stream` bodies;
 * the type comes from the bytes, the name from the bridge.
 *   POST /image?pane=   png, jpeg, gif, webp; ≤ 10 MiB   → <cwd>/.herdr-bridge/images/
 *   POST /file?pane=    pdf, docx, pptx; ≤ 25 MiB        → <cwd>/.herdr-bridge/files/
 */
export const IMAGE_CAP = 10 * 1024 * 1024
export const FILE_CAP = 25 * 1024 * 1024

interface Kind {
  path: string
  dir: DropKind
  cap: number
  capText: string
  sniff: (head: Buffer, file: string) => Verdict | Promise<Verdict>
}

const KINDS: Kind[] = [
  { path: '/image', dir: 'images', cap: IMAGE_CAP, capText: '10 MiB', sniff: (head) => sniffImage(head) },
  { path: '/file', dir: 'files', cap: FILE_CAP, capText: '25 MiB', sniff: (head, file) => sniffDocument(head, file) },
]

export default defineBridgePlugin({
  name: 'attachments',
  routes: KINDS.map(route),
})

function route(kind: Kind): RouteDef {
  return defineBridgeRoute({
    method: 'POST',
    path: kind.path,
    auth: 'device',
    bodyType: 'raw',
    describe: kind.dir === 'images' ? 'Attach an image (png, jpeg, gif, webp)' : 'Attach a document (pdf, docx, pptx)',
    response: v.object({ path: v.string(), relative_path: v.string(), content_type: v.string(), bytes: v.pipe(v.number(), v.integer(), v.minValue(1)) }),
    query: v.object({ pane: v.pipe(v.optional(v.string(), ''), v.nonEmpty('want ?pane=<pane_id>'), v.description('agent pane id, session-qualified')) }),
    audit: ({ query }) => ({ pane: query.pane }),
    async handler({ event, query, ctx }) {
      const request = event.req as Request
      const tooLarge = () => text(`body over the ${kind.capText} limit of ${kind.path}`, 413, { connection: 'close' })
      // Refuse on the declared length before any herdr call or disk write.
      const declared = request.headers.get('content-length')
      if (declared !== null) {
        const n = Number(declared)
        if (n === 0) fail(400, 'empty body')
        if (n > kind.cap) return tooLarge()
      }
      const cwd = await dropCwd(ctx, query.pane)
      const dir = await ensureDropDir(cwd, kind.dir)

      let got
      try {
        got = await receiveToFile(request.body, dir, kind.cap)
      } catch (err) {
        if (err instanceof OverCap) return tooLarge()
        throw err
      }
      let kept = false
      try {
        if (got.bytes === 0) fail(400, 'empty body')
        const verdict = await kind.sniff(got.head, got.tempPath)
        if (!verdict.ok) fail(415, verdict.message)
        const name = dropName(ctx.now(), got.sha256, verdict.ext)
        const path = join(dir, name)
        await rename(got.tempPath, path)
        kept = true
        const removed = await prune(dir, ctx.now()).catch(() => [])
        if (removed.length) ctx.log.debug(`pruned ${removed.length} old file(s) in ${dir}`)
        return { path, relative_path: `${DROP_DIR}/${kind.dir}/${name}`, content_type: verdict.content_type, bytes: got.bytes }
      } finally {
        if (!kept) await unlink(got.tempPath).catch(() => {})
      }
    },
  })
}

/** The agent's cwd when the pane hosts one, else the pane's own cwd. */
async function dropCwd(ctx: PluginContext, pane: string): Promise<string> {
  const notFound = (err: unknown) => {
    if (err instanceof HerdrError && err.code === 'session_not_found') return null
    throw err
  }
  const agent = await ctx.herdr.getAgent(pane).catch(notFound)
  const agentCwd = agent?.agent.cwd || agent?.agent.foreground_cwd
  if (agentCwd) return agentCwd
  const found = await ctx.herdr.getPane(pane).catch(notFound)
  if (!agent && !found) fail(404, 'no such pane')
  const cwd = found?.pane.cwd || found?.pane.foreground_cwd
  if (!cwd) fail(404, 'herdr reports no cwd for this pane')
  return cwd
}
