import { spawn } from 'node:child_process'
import { homedir } from 'node:os'
import type { Agent } from 'node:http'
import { join } from 'node:path'
import { loadConfig, resolveDataDir, updateStoredConfig } from '../core/config.ts'
import { CliError, readConfig } from './admin-client.ts'
import { bridgeCommand } from './errors.ts'
import { findCredential, describeCredential, gcloudAdcPath, CredentialError, MESSAGING_SCOPE, type FoundCredential } from '../plugins/notify-fcm/credentials.ts'
import { createFcmSender, useQuotaProject } from '../plugins/notify-fcm/sender.ts'
import { fcmSettings } from '../plugins/notify-fcm/settings.ts'

/**
 * `bridge push login --project <id>` and `bridge push status` (the README's Alerts section). Both
 * work on the config file directly; neither needs the daemon running.
 */

export interface PushCliOptions {
  dir?: string
  env?: NodeJS.ProcessEnv
  home?: string
  /** Where lines go (the terminal by default). */
  out?: (line: string) => void
  /** Agent for Google requests (tests: a local fake FCM). */
  httpAgent?: Agent
}

/**
 * gcloud's default ADC scopes omit messaging, and FCM then answers 403 as if permissions were
 * missing; the messaging scope is asked for explicitly (cloud-platform is required by gcloud).
 */
export const LOGIN_SCOPES = [MESSAGING_SCOPE, 'https://www.googleapis.com/auth/cloud-platform', 'openid', 'https://www.googleapis.com/auth/userinfo.email']

export async function pushLogin(opts: PushCliOptions & { project?: string }): Promise<void> {
  const env = opts.env ?? process.env
  const out = opts.out ?? ((l: string) => console.log(l))
  const config = loadConfig({ dir: opts.dir, env })
  const push = fcmSettings(config, env)
  const project = (opts.project ?? '').trim() || push.project_id
  if (!project) throw new CliError(`push login needs the Firebase project id: ${bridgeCommand('push login --project <project-id>')}`)
  if (!/^[a-z][a-z0-9-]{4,61}[a-z0-9]$/.test(project)) throw new CliError(`"${project}" is not a Firebase/Google Cloud project id (lowercase letters, digits and hyphens)`)
  updateStoredConfig(config.config_path, (f) => {
    f.push = { ...((f.push as object | undefined) ?? {}), project_id: project }
  })
  out(`Saved push.project_id = ${project} in ${config.config_path}`)

  const args = ['auth', 'application-default', 'login', `--scopes=${LOGIN_SCOPES.join(',')}`]
  const code = await new Promise<number | 'missing'>((resolve) => {
    const child = spawn('gcloud', args, { env, stdio: 'inherit' })
    child.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ENOENT' ? 'missing' : 1))
    child.once('exit', (c) => resolve(c ?? 1))
  })
  if (code === 'missing') {
    out('gcloud (the Google Cloud CLI) is not installed, so no login was run. Either:')
    out(`  1. install it (https://cloud.google.com/sdk/docs/install), then run again: ${bridgeCommand(`push login --project ${project}`)}`)
    out(`  2. or create a service-account key for project ${project} with the "Firebase Cloud Messaging API Admin" role`)
    out(`     (Google Cloud console → IAM & Admin → Service accounts → Keys → Add key → JSON)`)
    out(`     and save it as ${push.service_account_path}`)
    out(`Then check with: ${bridgeCommand('push status')}`)
    throw new CliError('push login: gcloud not found')
  }
  if (code !== 0)
    throw new CliError(
      `gcloud auth application-default login failed (exit ${code}; its messages are above); run \`${bridgeCommand(`push login --project ${project}`)}\` again, or save a service-account key as ${push.service_account_path} and check it with \`${bridgeCommand('push status')}\``,
    )
  await pushStatus(opts)
}

export async function pushStatus(opts: PushCliOptions): Promise<void> {
  const env = opts.env ?? process.env
  const home = opts.home ?? env.HOME ?? homedir()
  const out = opts.out ?? ((l: string) => console.log(l))
  const dataDir = resolveDataDir(opts.dir, env)
  const config = readConfig(dataDir, env)
  if (!config)
    throw new CliError(`no config at ${join(dataDir, 'config.json')}: the data dir is not initialised; \`${bridgeCommand('serve')}\` creates it, or pass your bridge's --dir`)
  const push = fcmSettings(config, env)
  let found: FoundCredential | null
  try {
    found = await findCredential({ push, env, home, httpAgent: opts.httpAgent })
  } catch (err) {
    if (err instanceof CredentialError) throw new CliError(err.message)
    throw err
  }
  if (!found) {
    out('No FCM credentials found: alerts to the mobile app (FCM) are only logged; Web Push, ntfy and webhooks need none. Searched, in order:')
    out(`  1. ${push.service_account_path} (push.service_account_path / BRIDGE_SERVICE_ACCOUNT)`)
    out(`  2. $GOOGLE_APPLICATION_CREDENTIALS${env.GOOGLE_APPLICATION_CREDENTIALS ? ` (${env.GOOGLE_APPLICATION_CREDENTIALS})` : ' (not set)'}`)
    out(`  3. ${gcloudAdcPath(env, home)} (gcloud application-default login)`)
    out(`  4. the metadata server (${env.GCE_METADATA_HOST || 'metadata.google.internal'})`)
    throw new CliError(`push: no credentials found; save a service-account key as ${push.service_account_path} or run \`${bridgeCommand('push login --project <project-id>')}\``)
  }
  out(`Credentials: ${describeCredential(found)}`)
  const restoreQuota = found.type === 'authorized_user' ? useQuotaProject(found.projectId) : () => {}
  const sender = createFcmSender({ credential: found.credential, projectId: found.projectId, httpAgent: opts.httpAgent, backoffMs: [] })
  try {
    // A validate-only send to a topic checks the token and the send permission, delivering nothing.
    const r = await sender.send({ topic: 'herdr-bridge-status-check', data: { type: 'check' } }, { dryRun: true })
    if (r.ok) {
      out(`Send permission: ok (a validate-only send to project ${found.projectId} was accepted)`)
      return
    }
    if (r.code === 'messaging/mismatched-credential' || / 403|PERMISSION_DENIED|permission/i.test(r.message)) {
      out(`Send permission: credential valid but not permitted to send for project ${found.projectId} (${r.message})`)
      out('Grant the "Firebase Cloud Messaging API Admin" role (and enable the FCM API); a new grant can take a minute to apply.')
      throw new CliError('push: credential not permitted')
    }
    if (r.code.startsWith('app/')) {
      out(`Credential rejected: ${r.message}`)
      throw new CliError('push: credential rejected')
    }
    out(`Send check failed: ${r.code}: ${r.message}`)
    throw new CliError('push: send check failed')
  } finally {
    await sender.close()
    restoreQuota()
  }
}
