/** Slash-command completion for the reply box. */
export interface Command {
  name: string
  description?: string
  argument_hint?: string
  source?: string
  scope?: string
}

/** The word being completed when the text is a lone `/word` at the start, else null. */
export function slashQuery(text: string): string | null {
  const m = /^\/([\w:.-]*)$/.exec(text)
  return m ? m[1].toLowerCase() : null
}

/** Prefix matches first, then substring matches; the bridge's own order within each. */
export function completions(commands: Command[], query: string, max = 8): Command[] {
  const named = commands.filter((c) => c.name)
  const bare = (c: Command) => c.name.replace(/^\//, '').toLowerCase()
  const prefix = named.filter((c) => bare(c).startsWith(query))
  const inner = named.filter((c) => !bare(c).startsWith(query) && bare(c).includes(query))
  return [...prefix, ...inner].slice(0, max)
}

export const commandText = (c: Command): string => `/${c.name.replace(/^\//, '')} `
