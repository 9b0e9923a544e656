import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Agent } from 'node:http'
import { createRequire } from 'node:module'
import type { Credential } from 'firebase-admin/app'
import { readCapped } from '../../lib/capped-read.ts'
import type { FcmSettings } from './settings.ts'
import { errField } from '../../lib/error-fields.ts'

/**
 * Push credentials in Google's application-default search order (as the README's Alerts section
 * lists them), first hit wins:
 *   1. config `push.service_account_path` (env BRIDGE_SERVICE_ACCOUNT; default <data dir>/serviceAccount.json)
 *   2. $GOOGLE_APPLICATION_CREDENTIALS
 *   3. the gcloud well-known file ($CLOUDSDK_CONFIG or ~/.config/gcloud)/application_default_credentials.json
 *   4. the metadata server ($GCE_METADATA_HOST or metadata.google.internal), probed for 400 ms
 * A missing file moves on to the next source; a file that is present but unusable is an error
 * naming it, because silently skipping it would send with credentials the operator did not pick.
 */

export const MESSAGING_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging'
const MAX_CREDENTIAL_FILE = 256 * 1024
const METADATA_PROBE_MS = 400
/** A project id or an access token: the metadata server never needs more (lib/capped-read.ts). */
const METADATA_MAX_BYTES = 64 * 1024

export type CredentialSource = 'config' | 'GOOGLE_APPLICATION_CREDENTIALS' | 'gcloud' | 'metadata'

export interface FoundCredential {
  source: CredentialSource
  /** The file it came from (absent for the metadata server). */
  path?: string
  type: 'service_account' | 'authorized_user' | 'metadata'
  projectId: string
  /** Service-account email, when the credential names one. */
  identity?: string
  credential: Credential
}

export class CredentialError extends Error {}

export interface FindOptions {
  push: Pick<FcmSettings, 'service_account_path' | 'project_id'>
  env: NodeJS.ProcessEnv
  home: string
  /** Agent for every Google request (token endpoints and FCM); tests route it to a local server. */
  httpAgent?: Agent
}

export async function findCredential(opts: FindOptions): Promise<FoundCredential | null> {
  const { env, home, push } = opts
  const files: [CredentialSource, string][] = []
  if (push.service_account_path) files.push(['config', push.service_account_path])
  if (env.GOOGLE_APPLICATION_CREDENTIALS) files.push(['GOOGLE_APPLICATION_CREDENTIALS', env.GOOGLE_APPLICATION_CREDENTIALS])
  files.push(['gcloud', gcloudAdcPath(env, home)])
  for (const [source, path] of files) {
    const json = readCredentialFile(path)
    if (json) return fromJson(source, path, json, opts)
  }
  return probeMetadata(env, push.project_id)
}

export function gcloudAdcPath(env: NodeJS.ProcessEnv, home: string): string {
  if (env.CLOUDSDK_CONFIG) return join(env.CLOUDSDK_CONFIG, 'application_default_credentials.json')
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'gcloud', 'application_default_credentials.json')
  return join(home, '.config', 'gcloud', 'application_default_credentials.json')
}

function readCredentialFile(path: string): Record<string, unknown> | null {
  let size: number
  try {
    const st = statSync(path)
    if (!st.isFile()) throw new CredentialError(`push credentials ${path} is not a regular file`)
    size = st.size
  } catch (err) {
    if (err instanceof CredentialError) throw err
    const code = errField(err, 'code')
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    throw new CredentialError(`cannot read push credentials ${path}: ${String(code ?? errField(err, 'message') ?? err)}`)
  }
  if (size > MAX_CREDENTIAL_FILE) throw new CredentialError(`push credentials ${path} is over ${MAX_CREDENTIAL_FILE} bytes; not a credential file`)
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new CredentialError(`push credentials ${path} is not valid JSON (${String(errField(err, 'message') ?? err)})`)
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CredentialError(`push credentials ${path} is not a JSON object`)
  return parsed as Record<string, unknown>
}

// firebase-admin is loaded on first use of a credential, not by the search: a bridge without
// push credentials (or that never sends) does not carry the SDK in memory.
const requireFirebase = createRequire(import.meta.url)
type CredentialFactory = 'cert' | 'refreshToken'

function lazyCredential(factory: CredentialFactory, path: string, httpAgent?: Agent): Credential {
  let made: Credential | undefined
  const real = () => (made ??= (requireFirebase('firebase-admin/app') as typeof import('firebase-admin/app'))[factory](path, httpAgent))
  return { getAccessToken: () => real().getAccessToken() }
}

// The credential is built from the path, not the parsed object: only then does firebase-admin
// hand `httpAgent` to the token request as well as to FCM.
function fromJson(source: CredentialSource, path: string, json: Record<string, unknown>, opts: FindOptions): FoundCredential {
  const str = (k: string) => (typeof json[k] === 'string' ? (json[k] as string) : '')
  try {
    if (json.type === 'service_account') {
      const projectId = str('project_id') || opts.push.project_id
      if (!projectId) throw new CredentialError(`service account ${path} names no project_id`)
      return { source, path, type: 'service_account', projectId, identity: str('client_email'), credential: lazyCredential('cert', path, opts.httpAgent) }
    }
    if (json.type === 'authorized_user') {
      // User credentials name a person, not a project: the project comes from config.
      const projectId = opts.push.project_id || str('quota_project_id')
      if (!projectId) throw new CredentialError(`user credentials ${path} need a project: run \`bridge push login --project <id>\` or set push.project_id`)
      return { source, path, type: 'authorized_user', projectId, credential: lazyCredential('refreshToken', path, opts.httpAgent) }
    }
  } catch (err) {
    if (err instanceof CredentialError) throw err
    throw new CredentialError(`push credentials ${path}: ${(err as Error).message}`)
  }
  throw new CredentialError(`push credentials ${path} have type ${JSON.stringify(json.type ?? null)}; want service_account or authorized_user`)
}

function metadataBase(env: NodeJS.ProcessEnv): string {
  return `http://${env.GCE_METADATA_HOST || 'metadata.google.internal'}/computeMetadata/v1`
}

async function probeMetadata(env: NodeJS.ProcessEnv, configuredProject: string): Promise<FoundCredential | null> {
  const base = metadataBase(env)
  let project: string
  try {
    const res = await fetch(`${base}/project/project-id`, { headers: { 'Metadata-Flavor': 'Google' }, signal: AbortSignal.timeout(METADATA_PROBE_MS) })
    if (!res.ok || res.headers.get('metadata-flavor') !== 'Google') return null
    project = (await readCapped(res.body, { maxBytes: METADATA_MAX_BYTES, deadlineMs: METADATA_PROBE_MS })).text.trim()
  } catch {
    return null
  }
  const credential: Credential = {
    async getAccessToken() {
      const res = await fetch(`${base}/instance/service-accounts/default/token?scopes=${encodeURIComponent(MESSAGING_SCOPE)}`, {
        headers: { 'Metadata-Flavor': 'Google' },
        signal: AbortSignal.timeout(10_000),
      })
      if (!res.ok) throw new Error(`metadata server token request failed: ${res.status}`)
      const reply = await readCapped(res.body, { maxBytes: METADATA_MAX_BYTES, deadlineMs: 10_000 })
      if (reply.truncated) throw new Error(`metadata server token answer over ${METADATA_MAX_BYTES} bytes or late`)
      const t = JSON.parse(reply.text) as { access_token?: string; expires_in?: number }
      if (typeof t.access_token !== 'string') throw new Error('metadata server returned no access_token')
      return { access_token: t.access_token, expires_in: Number(t.expires_in) || 3600 }
    },
  }
  return { source: 'metadata', type: 'metadata', projectId: configuredProject || project, credential }
}

/** One line for logs and `push status`; never includes key material. */
export function describeCredential(c: FoundCredential): string {
  const from =
    c.source === 'metadata'
      ? 'the metadata server'
      : c.source === 'config'
        ? `${c.path} (push.service_account_path)`
        : c.source === 'gcloud'
          ? `${c.path} (gcloud)`
          : `${c.path} ($GOOGLE_APPLICATION_CREDENTIALS)`
  return `${c.type.replace('_', ' ')} from ${from}, project ${c.projectId}${c.identity ? `, as ${c.identity}` : ''}`
}
