import * as v from 'valibot'
import { link, rename, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { defineBridgePlugin, defineBridgeRoute, type PluginContext, type AnyRouteDef } from '../../core/plugin.ts'
import { fail, text } from '../../core/respond.ts'
import { drainBody } from '../../core/body.ts'
import { HerdrError } from '../../core/herdr/index.ts'
import { sniffImage, sniffDocument, type Verdict } from './sniff.ts'
import { ensureDropDir, dropName, prune, DROP_DIR, type DropKind } from './drop-dir.ts'
import { receiveToFile, OverCap } from './receive.ts'
import { DirMoved, type HeldDir } from '../../lib/open-confined.ts'

/**
 * Attachments dropped into a pane's tree. Raw `application/octet-stream` bodies; the type comes
 * from the bytes, the name from the bridge.
 *   POST /image?pane=   png, jpeg, gif, webp; ≤ 10 MiB   → <cwd>/.herdr-bridge/images/
 *   POST /file?pane=[&name=]  pdf, docx, pptx, UTF-8 text; ≤ 25 MiB → <cwd>/.herdr-bridge/files/
 */
export const IMAGE_CAP = 10 * 1024 * 1024
export const FILE_CAP = 25 * 1024 * 1024

interface Kind {
  path: string
  dir: DropKind
  cap: number
  capText: string
  sniff: (head: Buffer, file: string, name: string) => Verdict | Promise<Verdict>
}

const KINDS: Kind[] = [
  { path: '/image', dir: 'images', cap: IMAGE_CAP, capText: '10 MiB', sniff: (head) => sniffImage(head) },
  { path: '/file', dir: 'files', cap: FILE_CAP, capText: '25 MiB', sniff: (head, file, name) => sniffDocument(head, file, name) },
]

export default defineBridgePlugin({
  name: 'attachments',
  routes: KINDS.map(route),
})

function route(kind: Kind): AnyRouteDef {
  return defineBridgeRoute({
    method: 'POST',
    path: kind.path,
    auth: 'device',
    bodyType: 'raw',
    describe: kind.dir === 'images' ? 'Attach an image (png, jpeg, gif, webp)' : 'Attach a document (pdf, docx, pptx) or a text file (UTF-8, no NUL)',
    response: v.object({ path: v.string(), relative_path: v.string(), content_type: v.string(), bytes: v.pipe(v.number(), v.integer(), v.minValue(1)) }),
    query: v.object({
      pane: v.pipe(v.optional(v.string(), ''), v.nonEmpty('want ?pane=<pane_id>'), v.description('agent pane id, session-qualified')),
      name: v.pipe(
        v.optional(v.string(), ''),
        v.maxLength(255, 'name over 255 characters'),
        v.description("optional: the file's own name; only a text file's short extension is kept from it"),
      ),
    }),
    audit: ({ query }) => ({ pane: query.pane }),
    async handler({ event, query, ctx }) {
      const request = event.req as Request
      const tooLarge = () => text(`body over the ${kind.capText} limit of ${kind.path}`, 413, { connection: 'close' })
      // Refuse on the declared length before any herdr call or disk write.
      const declared = request.headers.get('content-length')
      if (declared !== null) {
        const n = Number(declared)
        if (n === 0) fail(400, 'empty body')
        if (n > kind.cap) {
          // Dropped within bounds first (core/body.ts), so a client that writes before it reads sees the 413.
          await drainBody(request, kind.cap, ctx.limits.body_idle_ms)
          return tooLarge()
        }
      }
      const cwd = await dropCwd(ctx, query.pane)
      const shown = join(cwd, DROP_DIR, kind.dir)
      const dir = await ensureDropDir(cwd, kind.dir)
      try {
        return await store(kind, request, dir, shown, ctx, tooLarge, query.name)
      } catch (err) {
        if (err instanceof DirMoved) fail(409, `drop directory ${shown} was moved or replaced during the upload; try again`)
        throw err
      } finally {
        await dir.close()
      }
    },
  })
}

/**
 * Receives, types and names the upload inside the held drop directory. The directory is checked
 * to be still at its place before the rename and after it; a file that landed elsewhere is removed.
 */
async function store(kind: Kind, request: Request, dir: HeldDir, shown: string, ctx: PluginContext, tooLarge: () => Response, clientName: string) {
  let got
  try {
    got = await receiveToFile(request.body, dir, kind.cap, ctx.limits.body_idle_ms)
  } catch (err) {
    if (err instanceof OverCap) return tooLarge()
    throw err
  }
  let kept = false
  try {
    if (got.bytes === 0) fail(400, 'empty body')
    const verdict = await kind.sniff(got.head, got.tempPath, clientName)
    if (!verdict.ok) fail(415, verdict.message)
    const name = dropName(ctx.now(), got.sha256, verdict.ext)
    await dir.verify()
    const made = await place(got.tempPath, dir.at(name))
    kept = true
    try {
      await dir.verify()
    } catch (err) {
      if (made) await unlink(dir.at(name)).catch(() => {})
      throw err
    }
    const removed = await prune(dir, ctx.now()).catch(() => [])
    if (removed.length) ctx.log.debug(`pruned ${removed.length} old file(s) in ${shown}`)
    return { path: join(shown, name), relative_path: `${DROP_DIR}/${kind.dir}/${name}`, content_type: verdict.content_type, bytes: got.bytes }
  } finally {
    if (!kept) await unlink(got.tempPath).catch(() => {})
  }
}

/**
 * Moves the temp file to its final name; true when this call made that name. A hard link never
 * replaces a file, so the cleanup above cannot remove one an earlier upload answered with (the
 * same bytes in the same second have the same name); without hard links, a rename.
 */
async function place(temp: string, final: string): Promise<boolean> {
  let made = true
  try {
    await link(temp, final)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'EEXIST' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err
    if (code !== 'EEXIST') {
      await rename(temp, final)
      return true
    }
    made = false
  }
  await unlink(temp).catch(() => {})
  return made
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
