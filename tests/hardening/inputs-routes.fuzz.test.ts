// Arbitrary JSON bodies and query strings against the finished host routes (herdr proxy, send,
// approve, agent lifecycle, panes, branch delete, commands, suggestions, ports, browse, usage,
// testpush, attach): never a 500, never a stack trace, and the bridge keeps serving. 502 only
// where herdr itself answered with an error, as documented.
//
// Bodies never carry the ids of the panes that exist (the generators use made-up ids), so nothing
// is typed into a real shell and no agent is started; /pane/new bodies always name a made-up
// target, so no real tab is opened.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import fc from 'fast-check'
import { startStack, type Stack } from '../harness/stack.ts'
import { makeRepo, type Repo } from '../diff/repo.ts'
import { agentPane } from '../diff/panes.ts'
import { bounded } from './util.ts'

let stack: Stack
let repo: Repo
let real: { pane: string; workspace: string }

beforeAll(async () => {
  stack = await startStack()
  repo = makeRepo({ files: { 'README.md': 'hi\n' } })
  real = await agentPane(stack, repo.dir)
}, 60_000)
afterAll(async () => {
  await stack?.close()
  repo?.cleanup()
})

const HUGE = 'h'.repeat(200_000)
/** Made-up ids and strings that look like ids, paths and numbers. */
const junkId = fc.oneof(
  fc.constantFrom(
    'w999:p9',
    'nosuch/w1:p1',
    'default/w998:p1',
    'work/w1',
    '/w1',
    'w1:',
    ':p1',
    '..',
    '../../etc',
    '/etc/passwd',
    '',
    ' ',
    '\u0000',
    '%00',
    '-1',
    'NaN',
    'claude',
    'pi',
    'bash',
    'a/b/c',
    'x'.repeat(5000),
  ),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
)
/** Nested arrays/objects as JSON text `depth` deep: JSON.parse takes them, recursive code may not. */
const deepText = fc
  .tuple(fc.integer({ min: 100, max: 20_000 }), fc.boolean())
  .map(([depth, obj]) => (obj ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth)))
const value = fc.oneof(
  { weight: 4, arbitrary: junkId },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, HUGE, [], {}, ['enter'], { pane_id: 'w999:p9' }) },
)
const KEYS = [
  'pane',
  'text',
  'key',
  'agent',
  'seq',
  'kind',
  'pane_id',
  'split_from',
  'workspace_id',
  'cwd',
  'prompt',
  'name',
  'direction',
  'label',
  'timeout_ms',
  'command',
  'repo_root',
  'branch',
  'force',
  'method',
  'params',
  'session',
  '__proto__',
  'constructor',
]
const fields = fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 8 })), value, { maxKeys: 6 })
const METHODS = [
  'session.snapshot',
  'workspace.list',
  'workspace.get',
  'tab.list',
  'tab.get',
  'pane.list',
  'pane.get',
  'agent.list',
  'agent.get',
  'worktree.list',
  'tab.close',
  'tab.focus',
  'tab.rename',
  'pane.close',
  'pane.focus',
  'agent.focus',
  'server.stop',
  'pane.send_text',
  '',
  'x',
]

/** A request body as raw text: JSON of anything, broken JSON, or nothing. */
const rawBody = (extra: fc.Arbitrary<Record<string, unknown>> = fc.constant({})) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fields, extra).map(([f, e]) => JSON.stringify({ ...f, ...e })) },
    { weight: 2, arbitrary: fc.jsonValue().map((j) => JSON.stringify(j)) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }).map((a) => safeJson(a)) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', '[', 'null', '"x"', '{"pane":', '\u0000', '{"a":1}garbage', '{"__proto__":{"polluted":1}}', `"${HUGE}"`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...KEYS), deepText, extra)
        .map(([k, d, e]) => JSON.stringify(e).replace(/^\{/, `{${JSON.stringify(k)}:${d}${Object.keys(e).length ? ',' : ''}`)),
    },
  )

function safeJson(a: unknown): string {
  try {
    return JSON.stringify(a) ?? 'null'
  } catch {
    return 'null'
  }
}

/** No body may name a pane or workspace that exists. */
const harmless = (b: string) => !b.includes(real.pane) && !b.includes(real.workspace)

async function post(path: string, body: string, contentType = 'application/json'): Promise<{ status: number; body: string }> {
  const r = await bounded((signal) => stack.bridge.request(path, { method: 'POST', body, headers: { 'content-type': contentType }, signal }), 25_000)
  return { status: r.status, body: r.body }
}

function sane(tag: string, r: { status: number; body: string }, allowed: number[]): void {
  expect([tag.slice(0, 300), r.status, allowed.includes(r.status) ? 'ok' : r.body.slice(0, 300)]).toEqual([tag.slice(0, 300), r.status, 'ok'])
  expect(r.body).not.toMatch(/\n\s+at /)
  if (r.status >= 400) expect(r.body.trimEnd().includes('\n')).toBe(false)
}

describe('POST routes with arbitrary bodies (property)', () => {
  const cases: Array<[string, number[], fc.Arbitrary<Record<string, unknown>>]> = [
    ['/herdr', [200, 400, 403, 404, 502], fc.record({ method: fc.constantFrom(...METHODS), params: fc.oneof(fields, value) }, { requiredKeys: [] })],
    ['/send', [400, 404], fc.record({ pane: junkId, text: value, key: value }, { requiredKeys: [] })],
    ['/approve', [200, 400, 404], fc.record({ agent: junkId, seq: value }, { requiredKeys: [] })],
    [
      '/agent/start',
      [400, 404, 409],
      fc.record(
        {
          kind: fc.constantFrom('claude', 'pi', 'CLAUDE', ' claude ', 'nosuch'),
          pane_id: junkId,
          split_from: junkId,
          workspace_id: junkId,
          cwd: value,
          name: value,
          direction: value,
          timeout_ms: value,
        },
        { requiredKeys: [] },
      ),
    ],
    ['/agent/stop', [400, 404], fc.record({ pane_id: junkId }, { requiredKeys: [] })],
    ['/agent/restart', [400, 404], fc.record({ pane_id: junkId, prompt: value, timeout_ms: value }, { requiredKeys: [] })],
    [
      '/pane/new',
      [400, 404],
      fc.oneof(
        fc.record({ split_from: junkId.filter(Boolean), cwd: value, command: value, direction: value, label: value }),
        fc.record({ workspace_id: junkId.filter(Boolean), cwd: value, command: value, label: value }),
      ),
    ],
    ['/pane/close', [400, 404], fc.record({ pane_id: junkId }, { requiredKeys: [] })],
    [
      '/branch-delete',
      [400, 404, 409],
      fc.record(
        {
          repo_root: fc.oneof(junkId, fc.constantFrom(repo?.dir ?? '/', '/', '/tmp', '/nonexistent')),
          branch: fc.oneof(junkId, fc.constantFrom('main', '-D', '--all', 'HEAD', 'feat/x')),
          force: value,
        },
        { requiredKeys: [] },
      ),
    ],
    ['/testpush', [200], fc.constant({})],
  ]
  for (const [route, allowed, extra] of cases) {
    it(`POST ${route}: ${allowed.join('/')} only`, async () => {
      // /pane/new bodies must keep their made-up target: no other shape may open a real tab.
      const bodies = route === '/pane/new' ? extra.chain((e) => fields.map((f) => JSON.stringify({ ...f, ...e }))) : rawBody(extra)
      await fc.assert(
        fc.asyncProperty(bodies.filter(harmless), fc.constantFrom('application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded'), async (b, ct) => {
          if (route === '/pane/new') {
            // The validated body must still carry the made-up target, whatever the content type did.
            const parsed = (() => {
              try {
                return JSON.parse(b)
              } catch {
                return null
              }
            })()
            if (!parsed || (typeof parsed.split_from !== 'string' && typeof parsed.workspace_id !== 'string')) return
          }
          sane(`${route} ${ct} ${b}`, await post(route, b, ct), route === '/testpush' ? [200, 400, 415] : [...allowed, 415])
        }),
        { numRuns: route === '/testpush' ? 10 : 60 },
      )
    }, 120_000)
  }
})

describe('deeply nested bodies', () => {
  // Found by this suite: params nested ~10,000 deep overflowed the stack of the id walk (500).
  it('POST /herdr with params nested at any depth: 200/400/404/502, never 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30_000 }), fc.boolean(), fc.constantFrom('pane.get', 'session.snapshot', 'tab.rename'), async (depth, obj, method) => {
        const nest = obj ? '{"a":'.repeat(depth) + '"w9:p9"' + '}'.repeat(depth) : '['.repeat(depth) + '"w9:p9"' + ']'.repeat(depth)
        const r = await post('/herdr', `{"method":"${method}","params":{"pane_id":"w9:p9","x":${nest}}}`)
        sane(`/herdr depth ${depth}`, r, [200, 400, 404, 502])
        if (depth >= 32) expect([depth, r.status, r.body]).toEqual([depth, 400, '{"error":"params: nested deeper than 32 levels"}'])
      }),
      {
        numRuns: 40,
        examples: [
          [10_000, true, 'pane.get'],
          [10_000, false, 'pane.get'],
          [31, true, 'pane.get'],
          [32, false, 'session.snapshot'],
        ],
      },
    )
  })
})

describe('GET routes with arbitrary query strings (property)', () => {
  const qvalue = fc.oneof(junkId, fc.constantFrom('1', 'true', '0', '%', '%zz', '%E0%A4%A', '/', '..', '/etc', 'w1:p1'))
  const qkey = fc.oneof(fc.constantFrom('pane', 'path', 'hidden', 'session', 'mode', 'cols', 'rows', 'takeover', 'token', 'pane[]', ''), fc.string({ maxLength: 8 }))
  const query = fc.oneof(
    fc.array(fc.tuple(qkey, qvalue), { maxLength: 5 }).map((kv) => new URLSearchParams(kv).toString()),
    fc.string({ maxLength: 60 }).map((s) => s.replace(/#/g, '')),
    fc.constantFrom('pane=%E0%A4%A', 'pane', '&&&', '=', 'pane=a&pane=b', `pane=${'x'.repeat(6000)}`),
  )
  const cases: Array<[string, number[]]> = [
    ['/commands', [200, 400, 404]],
    ['/suggestions', [200, 400, 404]],
    ['/ports', [200, 502]],
    ['/browse', [200, 400, 403, 404]],
    ['/usage', [200]],
    ['/attach', [400, 404, 426]],
  ]
  for (const [route, allowed] of cases) {
    it(`GET ${route}?<arbitrary>: ${allowed.join('/')} only`, async () => {
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          const r = await bounded((signal) => stack.bridge.request(`${route}?${q}`, { signal }), 25_000)
          sane(`${route}?${q}`, r, allowed)
        }),
        { numRuns: route === '/ports' || route === '/usage' ? 15 : 50 },
      )
    }, 120_000)
  }

  it('the real agent pane is still served on the read routes', async () => {
    for (const route of ['/commands', '/suggestions']) {
      const r = await stack.bridge.request(`${route}?pane=${encodeURIComponent(real.pane)}`)
      expect([route, r.status]).toEqual([route, 200])
      await r.text()
    }
  })
})

describe('after the fuzz', () => {
  it('the bridge still answers and herdr is still reachable through it', async () => {
    const r = await post('/herdr', JSON.stringify({ method: 'pane.get', params: { pane_id: real.pane } }))
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body).result.pane.pane_id).toBe(real.pane)
    const snap = await stack.bridge.request('/snapshot')
    expect(snap.status).toBe(200)
    await snap.text()
  })
})
