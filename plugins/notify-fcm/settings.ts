import { join } from 'node:path'
import * as v from 'valibot'
import type { BridgeConfig } from '../../core/config.ts'
import { pluginConfig, type EnvSetting } from '../../core/plugin-config.ts'
import { configSection, configText } from '../../lib/config-schema.ts'

/**
 * FCM's settings: config.json's `push` section (`service_account_path`, `project_id`,
 * `android_channels`) and BRIDGE_SERVICE_ACCOUNT / BRIDGE_FCM_PROJECT, as the README's
 * configuration table lists them. Read by the plugin at start and by `bridge push login` /
 * `push status` / `doctor`, which run without starting plugins.
 */

export const FCM_SECTION = 'push'

const schema = configSection({
  service_account_path: configText,
  project_id: configText,
  android_channels: v.nullish(configSection({ blocked: configText, done: configText })),
})

/**
 * The variable's text as is. Given through `read` so a bad value in the file is refused in the
 * same line as before the section moved here (the variable never holds a wrong type).
 */
const asText = (name: string): EnvSetting => ({ name, read: (text) => text })

export interface FcmSettings {
  /** The service-account key file; `<data dir>/serviceAccount.json` when unset. */
  service_account_path: string
  project_id: string
  /** Channel ids of the OS-drawn notification (README: Alerts); unset ones keep the app's defaults. */
  android_channels: { blocked?: string; done?: string }
}

export function fcmSettings(config: BridgeConfig, env: NodeJS.ProcessEnv): FcmSettings {
  const s = pluginConfig(
    { config, env },
    { section: FCM_SECTION, schema, env: { service_account_path: asText('BRIDGE_SERVICE_ACCOUNT'), project_id: asText('BRIDGE_FCM_PROJECT') } },
  )
  const channels = s.android_channels
  return {
    service_account_path: s.service_account_path || join(config.data_dir, 'serviceAccount.json'),
    project_id: s.project_id || '',
    android_channels: { blocked: channels?.blocked || undefined, done: channels?.done || undefined },
  }
}
