import { existsSync, readdirSync } from 'node:fs'
import { createConnection } from 'node:net'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_SESSION } from './ids.ts'

/** herdr's config dir: $XDG_CONFIG_HOME/herdr, else ~/.config/herdr (Linux and macOS alike). */
export function herdrConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'herdr') : join(env.HOME || homedir(), '.config', 'herdr')
}

const VALID_NAME = /^[A-Za-z0-9._-]{1,64}$/

export function isValidSessionName(name: string): boolean {
  return VALID_NAME.test(name) && name !== '.' && name !== '..'
}

/** Socket path of a session, as herdr resolves it; HERDR_SOCKET_PATH overrides the default. */
export function sessionSocketPath(session: string, env: NodeJS.ProcessEnv = process.env): string {
  if (session === DEFAULT_SESSION) return env.HERDR_SOCKET_PATH || join(herdrConfigDir(env), 'herdr.sock')
  return join(herdrConfigDir(env), 'sessions', session, 'herdr.sock')
}

/** True when something accepts connections on the socket (herdr's own `running` test). */
export function socketAlive(path: string, timeoutMs = 1000): Promise<boolean> {
  if (!existsSync(path)) return Promise.resolve(false)
  return new Promise((resolve) => {
    const sock = createConnection(path)
    const done = (ok: boolean) => {
      clearTimeout(timer)
      sock.destroy()
      resolve(ok)
    }
    const timer = setTimeout(() => done(false), timeoutMs)
    // Connect and leave without a byte: herdr drops a connection that sends no line.
    sock.on('connect', () => done(true))
    sock.on('error', () => done(false))
  })
}

/** Named sessions with a live socket. The default session is handled by the caller. */
export async function scanNamedSessions(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const dir = join(herdrConfigDir(env), 'sessions')
  let names: string[] = []
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && isValidSessionName(e.name) && e.name !== DEFAULT_SESSION)
      .map((e) => e.name)
      .sort()
  } catch {
    return []
  }
  const alive = await Promise.all(names.map((n) => socketAlive(sessionSocketPath(n, env))))
  return names.filter((_, i) => alive[i])
}
