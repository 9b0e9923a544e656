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
export async function socketAlive(path: string, timeoutMs = 5000): Promise<boolean> {
  return (await probeSocket(path, timeoutMs)) === 'alive'
}

/**
 * `alive` or `dead` as the connect says; `unsure` when no answer came in time, which on a Unix
 * socket mostly means this process's event loop was busy, not that herdr is gone.
 */
export function probeSocket(path: string, timeoutMs = 5000): Promise<'alive' | 'dead' | 'unsure'> {
  if (!existsSync(path)) return Promise.resolve('dead')
  return new Promise((resolve) => {
    const sock = createConnection(path)
    const done = (r: 'alive' | 'dead' | 'unsure') => {
      clearTimeout(timer)
      sock.destroy()
      resolve(r)
    }
    const timer = setTimeout(() => done('unsure'), timeoutMs)
    // Connect and leave without a byte: herdr drops a connection that sends no line.
    sock.on('connect', () => done('alive'))
    sock.on('error', () => done('dead'))
  })
}

/**
 * Named sessions with a live socket. The default session is handled by the caller. A session in
 * `known` whose probe is unsure stays listed, so a busy moment does not make it flap.
 */
export async function scanNamedSessions(env: NodeJS.ProcessEnv = process.env, known: readonly string[] = []): Promise<string[]> {
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
  const probes = await Promise.all(names.map((n) => probeSocket(sessionSocketPath(n, env))))
  return names.filter((n, i) => probes[i] === 'alive' || (probes[i] === 'unsure' && known.includes(n)))
}
