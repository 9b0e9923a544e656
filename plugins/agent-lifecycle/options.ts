import type { AgentKind, StartOption } from '../../lib/agent-kinds.ts'

/** Free text's default shape: a model name, `provider/model`, a tag; never a flag (no leading -). */
const FREE_TEXT = /^[A-Za-z0-9][A-Za-z0-9._:/@[\]+-]{0,99}$/

function badValue(o: StartOption, value: string): string | undefined {
  if (o.values) return o.values.includes(value) ? undefined : `want one of ${o.values.join(', ')}`
  return (o.pattern ?? FREE_TEXT).test(value) ? undefined : 'want up to 100 letters, digits or . _ : / @ [ ] + - (not starting with -)'
}

/**
 * A start's `options` as the arguments after the kind's executable, in the order the kind
 * declares them (`{model: 'sonnet'}` → `--model sonnet`). An option the kind does not declare, or
 * a value not of its shape, is a one-line reason for a 400 and is never passed on. An empty value
 * is the same as none (the kind's default).
 */
export function startArgs(kind: string, def: AgentKind | undefined, options: Record<string, string> | undefined): { args: string[] } | { error: string } {
  const given = Object.keys(options ?? {})
  const declared = def?.start?.options ?? []
  const unknown = given.find((name) => !declared.some((o) => o.name === name))
  if (unknown !== undefined) {
    const takes = declared.length ? `it takes ${declared.map((o) => o.name).join(', ')}` : 'it takes none'
    return { error: `options.${unknown}: ${kind} has no such start option (${takes})`.slice(0, 300) }
  }
  const args: string[] = []
  for (const o of declared) {
    const value = options?.[o.name]
    if (value === undefined || value === '') continue
    const bad = badValue(o, value)
    if (bad) return { error: `options.${o.name}: ${bad}` }
    args.push(o.flag, value)
  }
  return { args }
}
