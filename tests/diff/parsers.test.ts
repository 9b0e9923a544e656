import { describe, it, expect } from 'vitest'
import { parseStatusV2, labelFor } from '../../lib/git/porcelain.ts'
import { splitPatch, headerPath } from '../../lib/git/patch.ts'
import { renderUntracked, BINARY_SENTENCE, TRUNCATED_MARKER } from '../../lib/git/untracked.ts'
import { resolveDefaultBranch, parseRefs, pickRemote } from '../../lib/git/status.ts'
import { clampWindow, sliceLines } from '../../plugins/diff/expand.ts'

describe('porcelain v2', () => {
  it('reads headers, ordinary, rename, unmerged and untracked records', () => {
    const out = [
      '# branch.oid (initial)',
      '# branch.head feat/x',
      '# branch.upstream origin/feat/x',
      '1 .M N... 100644 100644 100644 abc abc a file with spaces',
      '2 R. N... 100644 100644 100644 abc abc R100 new name',
      'old name',
      'u UU N... 100644 100644 100644 100644 a b c conflict.txt',
      '? dir/untracked',
      '',
    ].join('\0')
    expect(parseStatusV2(out)).toEqual({
      branch: 'feat/x',
      unborn: true,
      upstream: 'origin/feat/x',
      entries: [
        { path: 'a file with spaces', status: 'modified' },
        { path: 'new name', old_path: 'old name', status: 'renamed' },
        { path: 'conflict.txt', status: 'modified' },
        { path: 'dir/untracked', status: 'untracked' },
      ],
    })
    expect(parseStatusV2('# branch.head (detached)\0').branch).toBe('')
    expect([labelFor('A.'), labelFor('AD'), labelFor('.D'), labelFor('MM'), labelFor('C.')]).toEqual(['added', 'added', 'deleted', 'modified', 'renamed'])
  })
})

describe('patch splitting', () => {
  it('keys sections by the new path, including paths containing " b/" and quoted ones', () => {
    expect(headerPath('a/x b/y b/x b/y')).toBe('x b/y')
    expect(headerPath('"a/tab\\there" "b/tab\\there"')).toBe('tab\there')
    expect(headerPath('"a/caf\\303\\251" "b/caf\\303\\251"')).toBe('café')
    const patch =
      'diff --git a/one b/one\nindex 1..2 100644\n--- a/one\n+++ b/one\n@@ -1 +1 @@\n-+++ not a header\n++++ added\n' +
      'diff --git a/old b/new\nsimilarity index 90%\nrename from old\nrename to new\n'
    const s = splitPatch(patch)
    expect([...s.keys()]).toEqual(['one', 'new'])
    expect(s.get('one')).toMatchObject({ additions: 1, deletions: 1 })
    expect(s.get('new')).toMatchObject({ additions: 0, deletions: 0, diff: 'diff --git a/old b/new\nsimilarity index 90%\nrename from old\nrename to new\n' })
  })
})

describe('untracked synthesis', () => {
  it('renders text, empty, binary and cut files', () => {
    expect(renderUntracked('a', Buffer.from('x\ny'), false)).toEqual({ diff: '--- /dev/null\n+++ b/a\n+x\n+y\n', additions: 2 })
    expect(renderUntracked('a', Buffer.alloc(0), false)).toEqual({ diff: '--- /dev/null\n+++ b/a\n', additions: 0 })
    expect(renderUntracked('a', Buffer.from([0x61, 0, 0x62]), false)).toEqual({ diff: BINARY_SENTENCE, additions: 0 })
    // A cut through a multi-byte character is still text.
    const cut = Buffer.from('ab€').subarray(0, 4)
    expect(renderUntracked('a', cut, true)).toEqual({ diff: `--- /dev/null\n+++ b/a\n+ab\n${TRUNCATED_MARKER}\n`, additions: 1 })
  })
})

describe('default branch resolution (diff)', () => {
  const refs = (lines: string[]) => parseRefs(lines.join('\n'))
  it('remote HEAD, then main/master with the remote-tracking ref first, else nothing', () => {
    expect(resolveDefaultBranch(refs(['refs/remotes/origin/HEAD\0refs/remotes/origin/trunk', 'refs/heads/main\0']), 'origin')).toEqual({
      branch: 'trunk',
      ref: 'origin/trunk',
      fullRef: 'refs/remotes/origin/trunk',
    })
    expect(resolveDefaultBranch(refs(['refs/heads/main\0', 'refs/remotes/origin/main\0']), 'origin')).toEqual({
      branch: 'main',
      ref: 'origin/main',
      fullRef: 'refs/remotes/origin/main',
    })
    expect(resolveDefaultBranch(refs(['refs/heads/master\0', 'refs/remotes/other/main\0']), 'origin')).toEqual({ branch: 'master', ref: 'master', fullRef: 'refs/heads/master' })
    expect(resolveDefaultBranch(refs(['refs/heads/develop\0']), '')).toEqual({ branch: '', ref: '', fullRef: '' })
    expect([pickRemote('up\norigin\n'), pickRemote('up\nz\n'), pickRemote('')]).toEqual(['origin', 'up', ''])
  })
})

describe('expand window', () => {
  it('clamps and slices', () => {
    expect(clampWindow('90', '400')).toEqual({ start: 90, count: 400 })
    expect(clampWindow('0', '0')).toEqual({ start: 1, count: 1 })
    expect(clampWindow('x', '1e9')).toEqual({ start: 1, count: 400 })
    expect(clampWindow(undefined, undefined)).toEqual({ start: 1, count: 400 })
    const text = Array.from({ length: 96 }, (_, i) => `l${i + 1}`).join('\n') + '\n'
    expect(sliceLines(text, 90, 400)).toEqual({ lines: ['l90', 'l91', 'l92', 'l93', 'l94', 'l95', 'l96'], eof: true, total: 96 })
    expect(sliceLines('a\nb', 1, 1)).toEqual({ lines: ['a'], eof: false, total: 2 })
    expect(sliceLines('', 1, 5)).toEqual({ lines: [], eof: true, total: 0 })
  })
})
