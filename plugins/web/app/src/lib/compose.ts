import { ApiError } from './api.ts'

/** One file picked, pasted, dropped or shot, uploaded at once and sent as its path with the text. */
export interface Attachment {
  id: number
  name: string
  state: 'uploading' | 'ready' | 'failed'
  /** Object URL of an image, for its thumbnail. */
  preview?: string
  /** Where the bridge put it (what the agent gets). */
  path?: string
  why?: string
}

/** Image types /image takes as they are; any other picture is re-encoded as JPEG first. */
const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp)$/
const IMAGE_CAP = 10 * 1024 * 1024
/** Longest side of a re-encoded photo: plenty for an agent to read, far under the cap. */
const MAX_SIDE = 2560

/** The upload route for a file: pictures to /image, everything else to /file with its name (for a text file's extension). */
export function attachTarget(f: Blob & { name?: string }, pane: string): string {
  const p = encodeURIComponent(pane)
  if (IMAGE_TYPES.test(f.type)) return `/image?pane=${p}`
  return `/file?pane=${p}${f.name ? `&name=${encodeURIComponent(f.name.slice(-255))}` : ''}`
}

/** A camera's HEIC or a photo over the cap becomes a JPEG the bridge takes; others go as they are. */
export async function prepareImage(f: File): Promise<Blob> {
  if (IMAGE_TYPES.test(f.type) && f.size <= IMAGE_CAP) return f
  let bitmap: ImageBitmap
  try {
    bitmap = await createImageBitmap(f)
  } catch {
    throw new Error(`this browser cannot read ${f.name || 'that picture'}; send a png, jpeg, gif or webp image`)
  }
  const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height))
  const canvas = document.createElement('canvas')
  canvas.width = Math.round(bitmap.width * scale)
  canvas.height = Math.round(bitmap.height * scale)
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height)
  bitmap.close()
  const out = await new Promise<Blob | null>((r) => canvas.toBlob(r, 'image/jpeg', 0.88))
  if (!out) throw new Error(`could not convert ${f.name || 'that picture'} to jpeg`)
  return out
}

/** The text typed, then each ready attachment's path, space-separated (the agent reads paths). */
export function sendText(text: string, files: Array<Pick<Attachment, 'path'>>): string {
  const paths = files.map((f) => f.path).filter(Boolean)
  if (!paths.length) return text
  return (text.trim() ? text.replace(/\s+$/, '') + ' ' : '') + paths.join(' ')
}

/** An error as words for a person: the bridge's own sentence without its status code. */
export function wordsFor(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 413) return 'this file is too large: images up to 10 MiB, other files up to 25 MiB'
    if (err.status === 0) return err.message
    return err.message.replace(/^\d{3}: /, '')
  }
  return err instanceof Error ? err.message : String(err)
}

/** A screen that asks for a password or passphrase (its last lines), so the reply is masked. */
export function asksForSecret(...texts: Array<string | undefined>): boolean {
  return texts.some((t) => !!t && /\b(password|passphrase|passcode|pin)\b[^\n]{0,40}[:?]\s*$/im.test(t.split('\n').slice(-3).join('\n')))
}
