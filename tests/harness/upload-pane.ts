/** What the upload tests share: a bridge, an agent pane in a git repo, and raw bytes POSTed to it. */
import { afterAll, beforeAll } from 'vitest'
import { startStack, type Stack } from './stack.ts'
import { makeRepo, type Repo } from '../diff/repo.ts'
import { agentPane } from '../diff/panes.ts'

export interface UploadPane {
  stack: Stack
  /** A repo holding one README.md, the pane's cwd: uploads land in its .herdr-bridge folder. */
  repo: Repo
  pane: string
  /** POST `bytes` as application/octet-stream to `route` (/image, /file) for the pane, with ?name= when given. */
  upload(route: string, bytes: Buffer, opts?: { name?: string; signal?: AbortSignal }): Promise<Response>
}

/**
 * Starts the stack and the pane in beforeAll and tears them down in afterAll of the calling file;
 * the fields are set once beforeAll has run.
 */
export function useUploadPane(hookTimeout?: number): UploadPane {
  const at = {
    upload(route, bytes, { name, signal } = {}) {
      const q = `?pane=${encodeURIComponent(at.pane)}${name === undefined ? '' : `&name=${encodeURIComponent(name)}`}`
      return at.stack.bridge.request(route + q, {
        method: 'POST',
        body: bytes as unknown as BodyInit,
        headers: { 'content-type': 'application/octet-stream' },
        signal,
      })
    },
  } as UploadPane
  beforeAll(async () => {
    at.stack = await startStack()
    at.repo = makeRepo({ files: { 'README.md': 'hi\n' } })
    ;({ pane: at.pane } = await agentPane(at.stack, at.repo.dir))
  }, hookTimeout)
  afterAll(async () => {
    await at.stack?.close()
    at.repo?.cleanup()
  })
  return at
}
