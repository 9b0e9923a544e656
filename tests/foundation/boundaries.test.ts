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

  it('the check sees imports at all (a broken pattern would pass the two above)', () => {
    expect(imports('plugins/health/status.ts')).toContain(join('lib', 'notify', 'channels.ts'))
  })
})
