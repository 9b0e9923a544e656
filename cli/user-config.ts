/**
 * Which plugin list `bridge serve` runs: `--config <file>`, else BRIDGE_CONFIG, else
 * `<data dir>/bridge.config.ts` (or `.js` / `.mjs`) when present, else the built-in list.
 * A user config is TypeScript or JavaScript loaded with jiti, and may import `herdr-bridge`
 * from any directory: that name always means this running bridge, so plugins share its modules.
 */
import { existsSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { BridgeUserConfig } from '../core/plugin.ts'
import { CliError } from './errors.ts'

const DATA_DIR_NAMES = ['bridge.config.ts', 'bridge.config.js', 'bridge.config.mjs']

export interface LoadedUserConfig {
  config: BridgeUserConfig
  /** The file it came from; undefined for the built-in list. */
  file?: string
}

/** A config that cannot be used: one line naming the file and the reason. */
export class UserConfigError extends CliError {}

/** The config file to load, or undefined for the built-in list. */
export function findUserConfig(opts: { flag?: string; env: NodeJS.ProcessEnv; dataDir: string }): string | undefined {
  const given = opts.flag?.trim() || opts.env.BRIDGE_CONFIG?.trim()
  if (given) {
    const file = resolve(given)
    if (!existsSync(file) || !statSync(file).isFile()) {
      throw new UserConfigError(`config file not found: ${file} (from ${opts.flag?.trim() ? '--config' : 'BRIDGE_CONFIG'})`)
    }
    return file
  }
  return DATA_DIR_NAMES.map((n) => join(opts.dataDir, n)).find((f) => existsSync(f) && statSync(f).isFile())
}

export async function loadUserConfig(opts: { flag?: string; env: NodeJS.ProcessEnv; dataDir: string }): Promise<LoadedUserConfig> {
  const file = findUserConfig(opts)
  if (!file) return { config: (await import('../bridge.config.ts')).default }
  // jiti (and the parser it carries) is loaded only for a config file: a daemon on the built-in list never holds it.
  const { createJiti } = await import('jiti')
  const jiti = createJiti(import.meta.url, {
    // `herdr-bridge` is this bridge's own modules, never a second copy: one registry, one set of
    // error classes, whatever directory the config (or a kind package it imports) lives in.
    virtualModules: { 'herdr-bridge': await import('../index.ts'), 'herdr-bridge/kit': await import('../lib/kit.ts') },
    fsCache: false,
  })
  let mod: unknown
  try {
    mod = await jiti.import(file, { default: true })
  } catch (err) {
    throw new UserConfigError(`config ${file}: ${firstLine(err)}`)
  }
  return { config: checkConfig(mod, file), file }
}

/** The default export must be `defineConfig({ plugins: [...] })`; each entry a plugin or `[plugin, options]`. */
export function checkConfig(mod: unknown, file: string): BridgeUserConfig {
  const c = mod as BridgeUserConfig | undefined
  if (!c || typeof c !== 'object' || !Array.isArray(c.plugins)) {
    throw new UserConfigError(`config ${file}: the default export must be defineConfig({ plugins: [...] })`)
  }
  c.plugins.forEach((e, i) => {
    const def = Array.isArray(e) ? e[0] : e
    if (!def || typeof def !== 'object' || typeof (def as { name?: unknown }).name !== 'string') {
      throw new UserConfigError(`config ${file}: plugins[${i}] is not a plugin (want definePlugin({ name, … }) or [plugin, options])`)
    }
  })
  return c
}

function firstLine(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err)
  return (
    m
      .split('\n')
      .find((l) => l.trim())
      ?.trim()
      .slice(0, 300) ?? 'could not be loaded'
  )
}
