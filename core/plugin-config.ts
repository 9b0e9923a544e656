import * as v from 'valibot'
import type { PluginContext } from './plugin.ts'
import { PluginSetupError } from './services.ts'
import { isJsonObject } from '../lib/config-schema.ts'

/**
 * A plugin's own settings: one top-level section of config.json, checked by the plugin's valibot
 * schema, with environment variables that win over the file (as the core's BRIDGE_* do). A
 * plugin from outside the repository declares its settings here and needs no edit of
 * core/config.ts. A wrong value stops the start in one line naming the key, like the core's.
 *
 * Several plugins may read one section, each its own keys: the shipped notifiers and the push
 * plugin share `notify` (`notify.ntfy`, `notify.webhooks`, `notify.settle_ms`…), the keys
 * config.json has always had.
 */
export interface PluginConfigSpec<S extends v.GenericSchema> {
  /** The config.json key the plugin owns (`"slack": {…}`). */
  section: string
  /** The section's shape, as the plugin reads it; an absent section is checked as `{}`. */
  schema: S
  /**
   * Section key → the environment variable whose value replaces the file's. The key may be a
   * dotted path into the section (`webpush.insecure`). A plain name sets the key to the variable's
   * trimmed text; an {@link EnvSetting} says how the text becomes the key's value.
   */
  env?: Record<string, string | EnvSetting>
}

/** An environment variable whose text is not the key's value as is (a flag, a number, a list). */
export interface EnvSetting {
  name: string
  /**
   * The key's value from the variable's trimmed, non-empty text and the file's value of the
   * key; undefined keeps the file's value.
   */
  read(text: string, current: unknown, env: NodeJS.ProcessEnv): unknown
}

export class PluginConfigError extends PluginSetupError {}

const envName = (e: string | EnvSetting) => (typeof e === 'string' ? e : e.name)

/** The section with the variables applied, copied along the paths it changes (the config stays as read). */
function withEnv(from: unknown, env: NodeJS.ProcessEnv, spec: Record<string, string | EnvSetting>): unknown {
  if (!isJsonObject(from)) return from
  const root: Record<string, unknown> = { ...from }
  for (const [path, setting] of Object.entries(spec)) {
    const text = env[envName(setting)]?.trim()
    if (text === undefined || text === '') continue
    const keys = path.split('.')
    let at: Record<string, unknown> | undefined = root
    for (const k of keys.slice(0, -1)) {
      const next: unknown = at[k] ?? {}
      // A non-object in the way is the schema's to refuse, in the file's own words.
      if (!isJsonObject(next)) {
        at = undefined
        break
      }
      at = at[k] = { ...next }
    }
    if (!at) continue
    const last = keys.at(-1)!
    const value = typeof setting === 'string' ? text : setting.read(text, at[last], env)
    if (value !== undefined) at[last] = value
  }
  return root
}

export function pluginConfig<S extends v.GenericSchema>(ctx: Pick<PluginContext, 'config' | 'env'>, spec: PluginConfigSpec<S>): v.InferOutput<S> {
  const raw = ctx.config.sections?.[spec.section]
  const input = withEnv(raw === undefined || raw === null ? {} : raw, ctx.env, spec.env ?? {})
  const r = v.safeParse(spec.schema, input)
  if (r.success) return r.output
  const issue = r.issues[0]
  const path = issue.path?.map((p) => String(p.key)).join('.')
  // A variable whose text goes in as is may hold the bad value, so the line names it; one read
  // through `read` (a flag, a number) gives a good value or none.
  const variable = path && spec.env?.[path]
  throw new PluginConfigError(
    `config file ${ctx.config.config_path}: ${spec.section}${path ? `.${path}` : ''}${typeof variable === 'string' ? ` (or ${variable})` : ''}: ${issue.message}; fix or remove the key, the file was left untouched`,
  )
}
