import { loadConfig, splitAddr, type BridgeConfig } from '../core/config.ts'

/** The running daemon's localhost admin API, as the CLI reaches it. */
export function adminClient(opts: { dir?: string }) {
  let config: BridgeConfig
  try {
    config = loadConfig({ dir: opts.dir, create: false })
  } catch (err) {
    throw new CliError((err as Error).message)
  }
  const { host, port } = splitAddr(config.transport.addr)
  const local = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host
  const base = `http://${local.includes(':') ? `[${local}]` : local}:${port}`
  return {
    config,
    base,
    async call<T = any>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
      let res: Response
      try {
        res = await fetch(base + path, {
          method,
          headers: { authorization: `Bearer ${config.admin_token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        })
      } catch {
        throw new CliError(`the bridge is not running at ${base}; start it with \`npx bridge serve\``)
      }
      const textBody = await res.text()
      let parsed: any = textBody
      try {
        parsed = JSON.parse(textBody)
      } catch {}
      if (!res.ok) throw new CliError(`${method} ${path} failed (${res.status}): ${parsed?.error ?? textBody}`.trim())
      return parsed as T
    },
  }
}

/** An error shown to the user as one line, with a non-zero exit. */
export class CliError extends Error {}
