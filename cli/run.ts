import { renderUsage, runCommand, type ArgsDef, type CommandDef } from 'citty'
import { CliError, UsageError, bridgeCommand } from './errors.ts'
import { stripAnsi } from '../lib/text.ts'

/**
 * Runs a citty command tree with our own help, version and error handling: citty's runMain
 * prints usage plus a stack for every failure, while a CLI error here is exactly one line on
 * stderr and a non-zero exit (BRIDGE_DEBUG=1 adds the stack).
 */
export async function runCli(main: CommandDef<ArgsDef>, rawArgs: string[], version: string): Promise<void> {
  try {
    if (rawArgs.length === 1 && (rawArgs[0] === '--version' || rawArgs[0] === '-v')) return void console.log(version)
    const chain = await resolveChain(main, rawArgs)
    const { cmd, rest, path } = chain
    const help = `see \`${bridgeCommand([...path.slice(1), '--help'].join(' '))}\``
    if (rawArgs.includes('--help') || rawArgs.includes('-h')) return printUsage(cmd, chain.parent)
    const subs = await resolve(cmd.subCommands)
    const word = rest.find((a) => !a.startsWith('-'))
    if (subs && Object.keys(subs).length && !cmd.run) {
      if (word) throw new UsageError(`unknown command "${[...path.slice(1), word].join(' ')}"; ${help}`)
      // `bridge` or `bridge devices` alone: the list of commands, as a question answered.
      if (!rest.length) return printUsage(cmd, chain.parent)
    }
    await checkFlags(cmd, rest, path, help)
    try {
      await runCommand(main, { rawArgs })
    } catch (err) {
      // citty's own argument errors ("Missing required positional argument: ID") say what, not where to look.
      if ((err as Error)?.name === 'CLIError') throw new UsageError(`${(err as Error).message}; ${help}`)
      throw err
    }
  } catch (err) {
    fail(err)
  }
}

/** Usage text; colour only for a terminal, so a pipe or a file gets plain text. */
async function printUsage(cmd: CommandDef<ArgsDef>, parent?: CommandDef<ArgsDef>): Promise<void> {
  const text = await renderUsage(cmd, parent)
  console.log((process.stdout.isTTY && !process.env.NO_COLOR ? text : stripAnsi(text)) + '\n')
}

/** Prints one line for any error and exits 1 (2 for a usage error). */
export function fail(err: unknown): never {
  const e = err as Error & { code?: string }
  const known = err instanceof CliError || e?.name === 'CLIError'
  const line = known ? e.message : `unexpected error: ${e?.message ?? String(err)}; run again with BRIDGE_DEBUG=1 and report it`
  process.stderr.write(`bridge: ${stripAnsi(line).split('\n')[0]}\n`)
  if (process.env.BRIDGE_DEBUG === '1' && e?.stack) process.stderr.write(e.stack + '\n')
  process.exit(err instanceof CliError ? err.exitCode : e?.name === 'CLIError' ? 2 : 1)
}

interface Chain {
  cmd: CommandDef<ArgsDef>
  parent?: CommandDef<ArgsDef>
  rest: string[]
  path: string[]
}

async function resolveChain(main: CommandDef<ArgsDef>, rawArgs: string[]): Promise<Chain> {
  let cmd = main
  let parent: CommandDef<ArgsDef> | undefined
  let rest = rawArgs
  const path = ['bridge']
  for (;;) {
    const subs = await resolve(cmd.subCommands)
    const i = rest.findIndex((a) => !a.startsWith('-'))
    if (!subs || i < 0 || !(rest[i] in subs)) return { cmd, parent, rest, path }
    path.push(rest[i])
    parent = cmd
    cmd = await resolve(subs[rest[i]])
    rest = rest.slice(i + 1)
  }
}

/** citty ignores unknown flags; a mistyped `--adr` silently doing nothing is worse than an error. */
async function checkFlags(cmd: CommandDef<ArgsDef>, rest: string[], path: string[], help: string): Promise<void> {
  const args = ((await resolve(cmd.args)) ?? {}) as ArgsDef
  const known = new Set<string>()
  for (const [name, def] of Object.entries(args)) {
    if (def.type === 'positional') continue
    const alias = (def as { alias?: string | string[] }).alias
    const names = [name, ...(Array.isArray(alias) ? alias : alias ? [alias] : [])]
    for (const n of names) {
      known.add(n)
      known.add(n.replace(/[A-Z]/g, (c: string) => `-${c.toLowerCase()}`))
      if (def.type === 'boolean') known.add(`no-${n}`)
    }
  }
  for (const a of rest) {
    if (a === '--') break
    if (!a.startsWith('-') || a === '-') continue
    const name = a.replace(/^-{1,2}/, '').split('=')[0]
    if (!known.has(name)) throw new UsageError(`unknown option ${a.split('=')[0]} for \`${path.join(' ')}\`; ${help}`)
  }
}

async function resolve<T>(v: T | Promise<T> | (() => T) | (() => Promise<T>)): Promise<T> {
  return typeof v === 'function' ? await (v as () => T | Promise<T>)() : await v
}
