import * as v from 'valibot'
import type { PluginContext } from './plugin.ts'
import { PluginSetupError } from './services.ts'

/**
 * A plugin's own settings: one top-level section of config.json, checked by the plugin's valibot
 * schema, with environment variables that win over the file (as the core's BRIDGE_* do). A
 * plugin from outside the repository declares its settings here and needs no edit of
 * core/config.ts. A wrong value stops the start in one line naming the key, like the core's.
 */
export interface PluginConfigSpec<S extends v.GenericSchema> {
  /** The config.json key the plugin owns (`"slack": {…}`). */
  section: string
  /** The section's shape, as the plugin reads it; an absent section is checked as `{}`. */
  schema: S
  /** Section key → environment variable whose value (a string) replaces the file's. */
  env?: Record<string, string>
}

export class PluginConfigError extends PluginSetupError {}

export function pluginConfig<S extends v.GenericSchema>(ctx: Pick<PluginContext, 'config' | 'env'>, spec: PluginConfigSpec<S>): v.InferOutput<S> {
  const raw = ctx.config.sections?.[spec.section]
  const from = raw === undefined || raw === null ? {} : raw
  const input = from && typeof from === 'object' && !Array.isArray(from) ? { ...(from as Record<string, unknown>) } : from
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    for (const [key, name] of Object.entries(spec.env ?? {})) {
      const value = ctx.env[name]
      if (value !== undefined && value !== '') (input as Record<string, unknown>)[key] = value.trim()
    }
  }
  const r = v.safeParse(spec.schema, input)
  if (r.success) return r.output
  const issue = r.issues[0]
  const path = issue.path?.map((p) => String(p.key)).join('.')
  const envName = path && spec.env?.[path]
  throw new PluginConfigError(
    `config file ${ctx.config.config_path}: ${spec.section}${path ? `.${path}` : ''}${envName ? ` (or ${envName})` : ''}: ${issue.message}; fix or remove the key, the file was left untouched`,
  )
}
