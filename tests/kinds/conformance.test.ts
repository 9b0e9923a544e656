/**
 * Every agent kind the repository ships, and the out-of-tree example, through the one conformance
 * suite (tests/kinds/conformance.ts); the kinds with real transcripts in tests/fixtures/real mix
 * their lines into the fuzzed ones.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AnyPlugin } from '../../core/plugin.ts'
import { REPO_ROOT } from '../harness/bridge.ts'
import kindClaude from '../../plugins/kind-claude/index.ts'
import kindCodex from '../../plugins/kind-codex/index.ts'
import kindOpencode from '../../plugins/kind-opencode/index.ts'
import kindPi from '../../plugins/kind-pi/index.ts'
import kindHermes from '../../plugins/kind-hermes/index.ts'
import kindGeneric from '../../plugins/kind-generic/index.ts'
import kindGemini from '../../examples/agent-kind-gemini/index.ts'
import { testAgentKind } from './conformance.ts'

/** Up to 400 lines of the kind's real transcripts (tests/fixtures/real/<kind>). */
function realLines(kind: string): string[] {
  const dir = join(REPO_ROOT, 'tests/fixtures/real', kind)
  let files: string[]
  try {
    files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.jsonl'))
  } catch {
    return []
  }
  return files.flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).slice(0, 40)).slice(0, 400)
}

const plugins: AnyPlugin[] = [kindClaude, kindCodex, kindOpencode, kindPi, kindHermes, kindGeneric, kindGemini]
for (const p of plugins) for (const kind of p.agentKinds ?? []) testAgentKind(kind, { lines: realLines(kind.kind) })
