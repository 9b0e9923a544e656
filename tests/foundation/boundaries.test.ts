// The layout's promises, read from the import statements: a plugin reaches the core, lib/ and
// storage/ but never another plugin; core, lib/ and storage/ know no plugin. Removing a plugin's
// line from bridge.config.ts then removes exactly that plugin.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|mts|mjs)$/.test(e.name) && !/\bnode_modules\b|\bdist\b|\bapp\b/.test(relative(root, e.parentPath)))
    .map((e) => relative(root, join(e.parentPath, e.name)))
}

/** Every relative module a file imports (static and dynamic), resolved to a repo path. */
function imports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  const out: string[] = []
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)) out.push(relative(root, resolve(root, dirname(file), m[1])))
  return out
}

const top = (path: string) => path.split(sep)[0]
const pluginOf = (path: string) => (top(path) === 'plugins' ? path.split(sep)[1] : null)

describe('module boundaries', () => {
  it('no plugin imports another plugin', () => {
    const crossings = sources('plugins').flatMap((file) =>
      imports(file)
        .filter((target) => pluginOf(target) && pluginOf(target) !== pluginOf(file))
        .map((target) => `${file} → ${target}`),
    )
    expect(crossings).toEqual([])
  })

  it('core, lib and storage import no plugin', () => {
    const crossings = ['core', 'lib', 'storage'].flatMap((dir) =>
      sources(dir).flatMap((file) =>
        imports(file)
          .filter((target) => top(target) === 'plugins')
          .map((target) => `${file} → ${target}`),
      ),
    )
    expect(crossings).toEqual([])
  })

  it('lib imports no core, plugin or storage (it holds pure code)', () => {
    const crossings = sources('lib').flatMap((file) =>
      imports(file)
        .filter((target) => ['core', 'plugins', 'storage'].includes(top(target)))
        .map((target) => `${file} → ${target}`),
    )
    expect(crossings).toEqual([])
  })

  it('no import circle among the product modules', () => {
    const files = ['core', 'lib', 'plugins', 'storage', 'cli'].flatMap(sources)
    const graph = new Map(files.map((f) => [f, imports(f).filter((t) => t !== f)]))
    expect(circles(graph)).toEqual([])
  })

  it('the circle finder finds a circle', () => {
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']])
  })

  it('the check sees imports at all (a broken pattern would pass the ones above)', () => {
    expect(imports('plugins/health/status.ts')).toContain(join('core', 'notify', 'channels.ts'))
  })
})

/** The import circles of a graph (Tarjan's strongly connected components of two or more modules), each sorted. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const part: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      part.push(w)
    } while (w !== v)
    if (part.length > 1) found.push(part.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return found
}
