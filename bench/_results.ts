/**
 * bench/results.md as data: a header made here (the targets and one row per section saying when,
 * where and how its run went) and one `## name` section per benchmark. A run replaces only the
 * sections it ran, so a quiet rerun of one benchmark does not wipe the others or their notes.
 * Pure: bench/run.ts does the I/O.
 */

export interface RunRecord {
  /** ISO date and time the section started. */
  date: string
  node: string
  cpu: string
  mem_gib: number
  /** One-minute load average when the section started: other work on the machine skews ratios. */
  load: number | null
  /** Null for sections recorded before the runner kept records. */
  seconds: number | null
  status: 'ok' | 'failed'
}

export interface Section {
  name: string
  /** Everything under the heading, kept verbatim when the section is not rerun. */
  body: string
}

const TITLE = '# Benchmark results'

const INTRO = `Written by \`npm run bench [section…]\` (bench/run.ts): every section is a benchmark module in
bench/ that measures its floor in the same run and prints its ratio beside its target. Running some
sections replaces only those; the table below says when and on what each section was last run, so
compare ratios, not absolute times, across rows.`

/** The targets, each a ratio against a floor measured in the same run (or a count). */
const TARGETS = `| Benchmark | Floor | Target |
|---|---|---|
| \`/snapshot\`, 50 and 200 agents, 3 sessions, mixed kinds | one raw \`session.snapshot\` round trip per session | p50 ≤ 0.2×, p99 ≤ 0.5× |
| \`/snapshot\` bytes on the wire, 200 agents | the uncompressed body | ≤ 0.2× with \`br\` or \`gzip\` |
| \`/events\` fan-out, 100 clients × 2,000 transitions | separate-process raw subscription | p99 fan-out < 25 ms; end-to-end p50 ≤ 1.1× floor |
| \`/attach\` throughput, 200 MB | the stand-in's own stdout | ≥ 0.8×; echo p50 ≤ floor + 2 ms |
| \`/agent-transcript\` first connect, 1 GB | one sequential read of the file | ≤ 2×; after restart ≤ 50 ms; RSS growth ≤ 32 MiB |
| \`/diff\`, 5,000 files / 300 changed | \`git status\` + \`git diff HEAD\` | warm ≤ 1.2×, cold ≤ 1.3× |
| start-up, installed package (\`npm pack\` + \`npm install -g\`) | a bare Node HTTP server file started the same way | ≤ 2.5× |
| start-up, clone (\`node cli/bin.mjs serve\`) | the installed package | ≤ 1.3× |
| \`bridge --version\` in a clone | \`node -e 0\` | ≤ 3× |
| idle RSS, installed package, one herdr session | the bare Node HTTP server | ≤ 1.25× |
| \`/events\` frames per status change, 100 clients | — | 1, 2 when a push went out |
| CPU per status change, 100 \`/events\` clients | the code before the client-events filter, same run | ≤ 0.5× |`

const HEADER_SECTIONS = ['Targets', 'Runs']

const RECORD = /^<!-- run (\{.*\}) -->$/m

/** Splits results.md into its sections; a `## ` line inside a code fence is not a heading. */
export function parseResults(text: string): Section[] {
  const out: Section[] = []
  let cur: { name: string; lines: string[] } | null = null
  let fenced = false
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const m = !fenced && /^## (\S+)\s*$/.exec(line)
    if (m) {
      if (cur) out.push({ name: cur.name, body: cur.lines.join('\n').trim() })
      cur = { name: m[1], lines: [] }
    } else cur?.lines.push(line)
  }
  if (cur) out.push({ name: cur.name, body: cur.lines.join('\n').trim() })
  return out
}

export function recordOf(body: string): RunRecord | null {
  const m = RECORD.exec(body)
  if (!m) return null
  try {
    return JSON.parse(m[1]) as RunRecord
  } catch {
    return null
  }
}

/** A section as a run writes it: its record (read back by the header), then what it printed. */
export function sectionBody(record: RunRecord, printed: string[]): string {
  return `<!-- run ${JSON.stringify(record)} -->\n\n\`\`\`\n${printed.join('\n')}\n\`\`\``
}

function runsTable(sections: Section[]): string {
  // A section without a run record is prose kept between runs (the misses and their reasons).
  const rows = sections
    .filter(({ body }) => recordOf(body))
    .map(({ name, body }) => {
      const r = recordOf(body)!
      const load = r.load === null ? '—' : r.load.toFixed(1)
      return `| ${name} | ${r.date.slice(0, 16).replace('T', ' ')} | Node ${r.node}, ${r.cpu}, ${r.mem_gib} GiB | ${load} | ${r.seconds === null ? '—' : `${r.seconds.toFixed(1)} s`} | ${r.status === 'ok' ? 'ran' : '**FAILED**'} |`
    })
  return ['| Section | Run (UTC) | Machine | Load (1 min) at start | Took | Result |', '|---|---|---|---|---|---|', ...rows].join('\n')
}

/** The new results.md: the sections in `fresh` replace their namesakes, the rest stay as they were. */
export function mergeResults(existing: string, fresh: Section[]): string {
  // The header's own headings are rebuilt each time, never kept as sections.
  const kept = parseResults(existing).filter((s) => !HEADER_SECTIONS.includes(s.name))
  const byName = new Map(kept.map((s) => [s.name, s]))
  for (const s of fresh) byName.set(s.name, s)
  const recorded = (s: Section) => (recordOf(s.body) ? 0 : 1)
  const sections = [...byName.values()].sort((a, b) => recorded(a) - recorded(b) || a.name.localeCompare(b.name))
  const head = [TITLE, INTRO, '## Targets', TARGETS, '## Runs', runsTable(sections)].join('\n\n')
  return `${head}\n\n${sections.map((s) => `## ${s.name}\n\n${s.body}\n`).join('\n')}`
}
