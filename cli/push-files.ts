import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { BridgeConfig } from '../core/config.ts'
import { gcloudAdcPath } from '../plugins/notify-fcm/credentials.ts'
import { fcmSettings } from '../plugins/notify-fcm/settings.ts'

/**
 * The push credential files the bridge would try, in its order, and the first that exists.
 * Files only: the last place it looks, the metadata server, would be a network request.
 */
export function pushCredentialFiles(config: BridgeConfig | null, dataDir: string, env: NodeJS.ProcessEnv = process.env): { files: string[]; found: string | null } {
  const files = [
    config ? fcmSettings(config, env).service_account_path : join(dataDir, 'serviceAccount.json'),
    env.GOOGLE_APPLICATION_CREDENTIALS,
    gcloudAdcPath(env, env.HOME ?? homedir()),
  ].filter((f): f is string => !!f)
  return { files, found: files.find((f) => existsSync(f)) ?? null }
}
