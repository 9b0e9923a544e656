// A small subset of herdr's bundled claude screen-detection manifest, evaluated over the pane's
// detection text for agent.explain. Rule ids, states, priorities and regions follow
// src/detect/manifests/claude.toml; the matchers are simplified to what the fixtures draw.

interface Rule {
  id: string
  state: 'idle' | 'working' | 'blocked' | 'unknown'
  priority: number
  region: string
  contains: string[]
  line_regex: string[]
  any_count: number
  not_count: number
  test(region: string): boolean
}

const NAV = ['tab/arrow keys to navigate', 'arrow keys to navigate', 'arrows to navigate', '↑/↓ to navigate', '↑↓ to navigate']
const has = (text: string, needle: string): boolean => text.toLowerCase().includes(needle)
const lineMatches = (text: string, re: RegExp): boolean => text.split('\n').some((l) => re.test(l))

const CLAUDE_RULES: Rule[] = [
  {
    id: 'live_blocked_form',
    state: 'blocked',
    priority: 980,
    region: 'after_last_horizontal_rule',
    contains: ['enter to select', 'esc to cancel'],
    line_regex: [],
    any_count: NAV.length,
    not_count: 0,
    test: (t) => has(t, 'enter to select') && has(t, 'esc to cancel') && NAV.some((n) => has(t, n)),
  },
  {
    id: 'screen_working_spinner',
    state: 'working',
    priority: 960,
    region: 'whole_recent',
    contains: [],
    line_regex: ['^\\s*[·✢✳✶✻✽*+]\\s\\S.{0,40}…\\s*\\((\\d+[hms]|esc to interrupt)'],
    any_count: 0,
    not_count: 2,
    test: (t) => lineMatches(t, /^\s*[·✢✳✶✻✽*+]\s\S.{0,40}…\s*\((\d+[hms]|esc to interrupt)/u) && !has(t, 'do you want to proceed?') && !has(t, 'enter to select'),
  },
  {
    id: 'live_prompt_box',
    state: 'idle',
    priority: 950,
    region: 'prompt_box_body',
    contains: [],
    line_regex: ['^\\s*❯'],
    any_count: 0,
    not_count: 5,
    test: (t) => lineMatches(t, /^\s*❯/u) && !has(t, 'enter to select') && !has(t, 'esc to cancel') && !NAV.some((n) => has(t, n)),
  },
  {
    id: 'bash_permission_prompt',
    state: 'blocked',
    priority: 850,
    region: 'whole_recent',
    contains: ['do you want to proceed?'],
    line_regex: [],
    any_count: 5,
    not_count: 0,
    test: (t) =>
      has(t, 'do you want to proceed?') &&
      ['bash command', 'bash(', 'contains expansion', 'tab to amend', 'ctrl+e to explain'].some((n) => has(t, n)) &&
      lineMatches(t, /^\s*(❯\s*)?(1\.\s*)?yes\b/iu),
  },
  {
    id: 'generic_permission_prompt',
    state: 'blocked',
    priority: 840,
    region: 'after_last_horizontal_rule',
    contains: ['do you want to proceed?', 'esc to cancel'],
    line_regex: [],
    any_count: 0,
    not_count: 0,
    test: (t) => has(t, 'do you want to proceed?') && has(t, 'esc to cancel') && lineMatches(t, /^\s*(❯\s*)?[123]\.\s*(yes|no)\b/iu),
  },
]

const RULES_BY_AGENT: Record<string, Rule[]> = { claude: CLAUDE_RULES }

/** Text after the last line of 6+ box-drawing dashes, as herdr's `after_last_horizontal_rule`. */
function region(text: string, name: string): string {
  if (name !== 'after_last_horizontal_rule') return text
  const lines = text.split('\n')
  let last = -1
  lines.forEach((l, i) => {
    if (/─{6,}/u.test(l)) last = i
  })
  return last < 0 ? text : lines.slice(last + 1).join('\n')
}

function preview(text: string): string {
  const chars = [...text]
  return chars.length > 240 ? `${chars.slice(0, 240).join('')}...` : text
}

export interface ExplainInput {
  agent: string
  state: string
  screen: string
  /** A category the agent itself reported for its current block (simulator extension). */
  blockCategory?: string
}

export function explain(input: ExplainInput): Record<string, unknown> {
  const rules = RULES_BY_AGENT[input.agent] ?? []
  const evaluated = rules
    .slice()
    .sort((a, b) => b.priority - a.priority)
    .map((r) => {
      const text = region(input.screen, r.region)
      return {
        id: r.id,
        priority: r.priority,
        region: r.region,
        state: r.state,
        matched: r.test(text),
        evidence: {
          contains: r.contains,
          regex: [],
          line_regex: r.line_regex,
          all_count: 0,
          any_count: r.any_count,
          not_count: r.not_count,
          region_bytes: Buffer.byteLength(text),
          region_preview: preview(text),
        },
      }
    })
  if (input.blockCategory && input.state === 'blocked') {
    evaluated.unshift({
      id: input.blockCategory,
      priority: 2000,
      region: 'whole_recent',
      state: 'blocked',
      matched: true,
      evidence: {
        contains: [],
        regex: [],
        line_regex: [],
        all_count: 0,
        any_count: 0,
        not_count: 0,
        region_bytes: Buffer.byteLength(input.screen),
        region_preview: preview(input.screen),
      },
    })
  }
  const matched = evaluated.find((r) => r.matched)
  return {
    agent: input.agent,
    state: input.state,
    manifest_source: rules.length > 0 || input.blockCategory ? 'bundled' : null,
    matched_rule: matched ? { id: matched.id, priority: matched.priority, region: matched.region, state: matched.state } : null,
    visible_idle: matched?.state === 'idle',
    visible_blocker: matched?.state === 'blocked',
    visible_working: matched?.state === 'working',
    screen_detection_skipped: false,
    skip_state_update: false,
    skipped_update_reason: null,
    fallback_reason: matched ? null : 'no rule matched',
    warning: null,
    evaluated_rules: evaluated,
  }
}
