// Diff splitting, porcelain parsing and untracked synthesis (lib/git/) under generated input:
// arbitrary text never throws, generated sections and records round-trip, and real repositories
// with hostile file names give one entry per changed file, each with its own diff.
import { describe, it, expect, afterAll } from 'vitest'
import fc from 'fast-check'
import { writeFileSync, unlinkSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { splitPatch, headerPath } from '../../lib/git/patch.ts'
import { parseStatusV2, type StatusEntry } from '../../lib/git/porcelain.ts'
import { renderUntracked, decodeText, BINARY_SENTENCE, TRUNCATED_MARKER } from '../../lib/git/untracked.ts'
import { readGit } from '../../lib/git/status.ts'
import { makeRepo, gitEnv } from '../diff/repo.ts'

/** Text made of fragments the parsers look for, so random input reaches their branches. */
const patchish = () =>
  fc
    .array(
      fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.constantFrom(
          'diff --git ',
          '\ndiff --git ',
          'a/',
          'b/',
          ' b/',
          '"',
          '\\',
          '\\3',
          '\\303\\251',
          '\\n',
          '\n',
          '@@',
          '\n@@ -1 +1 @@\n',
          '+',
          '-',
          'rename to ',
          'copy to ',
          '\nrename to "',
          '\0',
        ),
      ),
      { maxLength: 40 },
    )
    .map((parts) => parts.join(''))

describe('splitPatch / headerPath on arbitrary text', () => {
  it('never throw, and every section is a slice of the input starting at a header', () => {
    fc.assert(
      fc.property(fc.oneof(patchish(), fc.string({ unit: 'binary', maxLength: 200 })), (text) => {
        const sections = splitPatch(text)
        for (const s of sections.values()) {
          expect(s.diff.startsWith('diff --git ')).toBe(true)
          expect(text.includes(s.diff)).toBe(true)
          expect(s.additions).toBeGreaterThanOrEqual(0)
          expect(s.deletions).toBeGreaterThanOrEqual(0)
        }
        headerPath(text)
      }),
      { numRuns: 2000 },
    )
  })
})

// git's quoting with core.quotePath=false: only `"`, `\` and control characters force quotes.
const NAMED: Record<string, string> = { '\x07': 'a', '\b': 'b', '\t': 't', '\n': 'n', '\v': 'v', '\f': 'f', '\r': 'r', '"': '"', '\\': '\\' }
function gitQuote(s: string): string {
  if (!/["\\\x00-\x1f\x7f]/.test(s)) return s
  let out = '"'
  for (const ch of s) {
    if (NAMED[ch]) out += `\\${NAMED[ch]}`
    else if (ch.charCodeAt(0) < 0x20 || ch === '\x7f') out += `\\${ch.charCodeAt(0).toString(8).padStart(3, '0')}`
    else out += ch
  }
  return out + '"'
}

/** Path characters that stress the parsers: separators, quotes, escapes, non-ASCII, ' b/'. */
const pathChar = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('a', 'b', 'x', '.', '-', '_') },
  { weight: 2, arbitrary: fc.constantFrom(' ', ' b/', 'a/', '"', '\\', '\t', '\n', '\r', '\x01', '\x7f', 'é', '日本', '😀', '\u00a0', '$', "'", '#') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
)
const repoPath = fc
  .array(pathChar, { minLength: 1, maxLength: 8 })
  .map((p) => p.join(''))
  .filter((p) => !p.includes('\0') && !p.startsWith('/') && !p.endsWith('/') && !p.includes('//'))

interface Gen {
  path: string
  old?: string
  plus: number
  minus: number
}

function renderSection(g: Gen): string {
  const a = `a/${g.old ?? g.path}`
  const b = `b/${g.path}`
  let s = `diff --git ${gitQuote(a)} ${gitQuote(b)}\n`
  if (g.old !== undefined) s += `similarity index 50%\nrename from ${gitQuote(g.old)}\nrename to ${gitQuote(g.path)}\n`
  s += `index 1111111..2222222 100644\n--- ${gitQuote(a)}\n+++ ${gitQuote(b)}\n@@ -1,${g.minus} +1,${g.plus} @@\n`
  for (let i = 0; i < g.minus; i++) s += `-${i % 3 === 0 ? '++ looks like a header' : 'old'}\n`
  for (let i = 0; i < g.plus; i++) s += `+${i % 3 === 0 ? '-- looks like a header' : 'diff --git not at line start'}\n`
  s += ' context\n\\ No newline at end of file\n'
  return s
}

describe('splitPatch round trip', () => {
  it('splitting a concatenation of per-file sections gives back each section, keyed by its new path, with its counts', () => {
    const gen = fc.record({ path: repoPath, old: fc.option(repoPath, { nil: undefined }), plus: fc.nat(5), minus: fc.nat(5) })
    fc.assert(
      fc.property(fc.uniqueArray(gen, { selector: (g) => g.path, maxLength: 6 }), (gens) => {
        const sections = gens.map(renderSection)
        const out = splitPatch(sections.join(''))
        expect([...out.keys()]).toEqual(gens.map((g) => g.path))
        gens.forEach((g, i) => expect(out.get(g.path)).toEqual({ path: g.path, diff: sections[i], additions: g.plus, deletions: g.minus }))
      }),
      { numRuns: 1000 },
    )
  })
})

describe('parseStatusV2', () => {
  it('never throws on arbitrary text', () => {
    const porcelainish = fc
      .array(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('\0', '# ', '# branch.head ', '# branch.oid (initial)', '1 ', '2 ', 'u ', '? ', '! ', ' ', 'R100 ')), {
        maxLength: 30,
      })
      .map((p) => p.join(''))
    fc.assert(
      fc.property(fc.oneof(porcelainish, fc.string({ unit: 'binary', maxLength: 200 })), (text) => {
        const r = parseStatusV2(text)
        expect(Array.isArray(r.entries)).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })

  it('serialised records (-z, so raw paths with spaces and newlines) parse back to the same entries', () => {
    const entry = fc.oneof(
      fc.record({ path: repoPath, status: fc.constantFrom('modified' as const, 'added' as const, 'deleted' as const, 'untracked' as const) }),
      fc.record({ path: repoPath, old_path: repoPath, status: fc.constant('renamed' as const) }),
    )
    const xy = { modified: '.M', added: 'A.', deleted: '.D' }
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), fc.boolean(), (entries: StatusEntry[], conflict) => {
        const recs = ['# branch.oid 0123456789abcdef0123456789abcdef01234567', '# branch.head feat/x y']
        for (const e of entries) {
          if (e.status === 'untracked') recs.push(`? ${e.path}`)
          else if (e.status === 'renamed') recs.push(`2 R. N... 100644 100644 100644 aaa bbb R100 ${e.path}`, e.old_path!)
          else if (conflict && e.status === 'modified') recs.push(`u UU N... 100644 100644 100644 100644 h1 h2 h3 ${e.path}`)
          else recs.push(`1 ${xy[e.status]} N... 100644 100644 100644 aaa bbb ${e.path}`)
        }
        const r = parseStatusV2(recs.join('\0') + '\0')
        expect(r.entries).toEqual(entries)
        expect(r.branch).toBe('feat/x y')
        expect(r.unborn).toBe(false)
      }),
      { numRuns: 1000 },
    )
  })
})

describe('renderUntracked', () => {
  it('arbitrary bytes: binary sentence exactly when not UTF-8 text, else one + line per line', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (bytes, truncated) => {
        const buf = Buffer.from(bytes)
        const r = renderUntracked('p', buf, truncated)
        if (r.diff === BINARY_SENTENCE) {
          expect(r.additions).toBe(0)
          return
        }
        const lines = r.diff.split('\n')
        expect(lines.slice(0, 2)).toEqual(['--- /dev/null', '+++ b/p'])
        const body = lines.slice(2, truncated ? -2 : -1)
        expect(body.length).toBe(r.additions)
        if (truncated) expect(lines.at(-2)).toBe(TRUNCATED_MARKER)
        for (const l of body) expect(l.startsWith('+')).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })

  it('a UTF-8 text cut at any byte is still text (the cut character is dropped, nothing else)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).filter((s) => !s.includes('\0') && !s.includes('\n')),
        fc.nat(),
        (s, at) => {
          const full = Buffer.from(s, 'utf8')
          const cut = full.subarray(0, at % (full.length + 1))
          const r = renderUntracked('p', cut, true)
          expect(r.diff).not.toBe(BINARY_SENTENCE)
          const line = r.additions ? r.diff.split('\n')[2].slice(1) : ''
          expect(s.startsWith(line)).toBe(true)
          // At most one character (≤ 4 bytes) is lost to the cut.
          expect(cut.length - Buffer.byteLength(line)).toBeLessThan(4)
          expect(decodeText(Buffer.from(line))).toBe(line)
        },
      ),
      { numRuns: 2000 },
    )
  })
})

describe('real repositories with hostile file names', () => {
  const repos: Array<{ cleanup(): void }> = []
  afterAll(() => repos.forEach((r) => r.cleanup()))

  // One path segment: anything git and Linux accept except '/' and NUL.
  const segment = fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('a', 'b', 'z', '.', '_', '1') },
        {
          weight: 2,
          arbitrary: fc.constantFrom(' ', '-', '--', ' b', 'a ', '"', '\\', '\t', '\n', '\r', '\x01', 'é', 'e\u0301', '日本', '😀', '*', '?', '[', "'", '$(x)', '\u200b'),
        },
      ),
      { minLength: 1, maxLength: 6 },
    )
    .map((p) => p.join(''))
    .filter((s) => s !== '.' && s !== '..' && s.toLowerCase() !== '.git' && Buffer.byteLength(s) < 200)
  const relPath = fc.array(segment, { minLength: 1, maxLength: 2 }).map((s) => s.join('/'))

  /** Drops paths that would be both a file and a directory. */
  const consistent = (paths: string[]) => paths.every((p) => !paths.some((q) => q !== p && (q.startsWith(`${p}/`) || p.startsWith(`${q}/`))))

  it('one entry per changed file, with the right path, status and its own diff', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(relPath, { minLength: 1, maxLength: 6 }).filter(consistent),
        fc.array(fc.constantFrom('modify', 'delete', 'keep'), { minLength: 6, maxLength: 6 }),
        fc.uniqueArray(relPath, { maxLength: 3 }),
        async (tracked, actions, fresh) => {
          const untracked = fresh.filter((p) => consistent([...tracked, p]) && !tracked.includes(p))
          if (!consistent([...tracked, ...untracked])) return
          const files: Record<string, string> = {}
          for (const p of tracked) files[p] = 'one\ntwo\n'
          const repo = makeRepo({ files })
          repos.push(repo)
          const expected = new Map<string, string>()
          tracked.forEach((p, i) => {
            if (actions[i] === 'modify') {
              writeFileSync(join(repo.dir, p), 'one\nTWO\nthree\n')
              expected.set(p, 'modified')
            } else if (actions[i] === 'delete') {
              unlinkSync(join(repo.dir, p))
              expected.set(p, 'deleted')
            }
          })
          for (const p of untracked) {
            mkdirSync(dirname(join(repo.dir, p)), { recursive: true })
            writeFileSync(join(repo.dir, p), 'new\n')
            expected.set(p, 'untracked')
          }
          const read = await readGit(repo.dir, { diff: true, env: gitEnv })
          expect(read.git.changed).toBe(expected.size)
          const got = new Map(read.files.map((f) => [f.path, f]))
          expect(new Set(got.keys())).toEqual(new Set(expected.keys()))
          for (const [p, status] of expected) {
            const f = got.get(p)!
            expect([p, f.status]).toEqual([p, status])
            if (status === 'modified') expect([p, f.additions, f.deletions]).toEqual([p, 2, 1])
            if (status === 'deleted') expect([p, f.additions, f.deletions]).toEqual([p, 0, 2])
            if (status === 'untracked') expect([p, f.diff]).toEqual([p, `--- /dev/null\n+++ b/${p}\n+new\n`])
            else expect(f.diff.startsWith('diff --git ')).toBe(true)
          }
          repo.cleanup()
        },
      ),
      // The first example is the name that found the astral-character bug in readQuoted: git quotes it
      // for the tab, keeps the emoji raw, and the section was keyed by a mangled path.
      { numRuns: 12, examples: [[['😀\t', 'sub dir/-x b', 'new\nline'], ['modify', 'modify', 'delete', 'keep', 'keep', 'keep'], [' b/"q"']]] },
    )
  }, 120_000)
})
