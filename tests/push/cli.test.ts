import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pushLogin, pushStatus, LOGIN_SCOPES } from '../../cli/push.ts'
import { startFakeFcm, USER_REFRESH_TOKEN, type FakeFcm } from './fake-fcm.ts'

let fcm: FakeFcm
let root: string
beforeAll(async () => {
  fcm = await startFakeFcm()
  root = mkdtempSync(join(tmpdir(), 'push-cli-'))
})
afterAll(async () => {
  await fcm?.close()
  rmSync(root, { recursive: true, force: true })
})

let n = 0
/** A fresh data dir and HOME, with no Google credentials reachable from the environment. */
function setup() {
  const base = join(root, `case-${++n}`)
  const home = join(base, 'home')
  const dir = join(base, 'data')
  mkdirSync(home, { recursive: true })
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, GCE_METADATA_HOST: '127.0.0.1:1', CLOUDSDK_CONFIG: join(home, 'gcloud') }
  const lines: string[] = []
  return { base, home, dir, env, lines, out: (l: string) => void lines.push(l) }
}

describe('bridge push status', () => {
  it('lists where it looked when there are no credentials', async () => {
    const s = setup()
    await pushLogin({ dir: s.dir, env: { ...s.env, PATH: '/nonexistent' }, out: s.out, project: 'demo-project' }).catch(() => {})
    s.lines.length = 0
    await expect(pushStatus({ dir: s.dir, env: s.env, home: s.home, out: s.out })).rejects.toThrow('push: no credentials')
    expect(s.lines).toEqual([
      'No FCM credentials found: alerts to the mobile app (FCM) are only logged; Web Push, ntfy and webhooks need none. Searched, in order:',
      `  1. ${join(s.dir, 'serviceAccount.json')} (push.service_account_path / BRIDGE_SERVICE_ACCOUNT)`,
      '  2. $GOOGLE_APPLICATION_CREDENTIALS (not set)',
      `  3. ${join(s.home, 'gcloud/application_default_credentials.json')} (gcloud application-default login)`,
      '  4. the metadata server (127.0.0.1:1)',
    ])
  })

  it('reports the service account and a successful validate-only send', async () => {
    const s = setup()
    await pushLogin({ dir: s.dir, env: { ...s.env, PATH: '/nonexistent' }, out: () => {}, project: 'demo-project' }).catch(() => {})
    const sa = join(s.dir, 'serviceAccount.json')
    writeFileSync(sa, JSON.stringify(fcm.serviceAccount))
    const before = fcm.requests.length
    await pushStatus({ dir: s.dir, env: s.env, home: s.home, out: s.out, httpAgent: fcm.agent })
    expect(s.lines).toEqual([
      `Credentials: service account from ${sa} (push.service_account_path), project demo-project, as bridge@demo-project.iam.gserviceaccount.com`,
      'Send permission: ok (a validate-only send to project demo-project was accepted)',
    ])
    expect(fcm.requests.slice(before).map((r) => r.body)).toEqual([{ message: { topic: 'herdr-bridge-status-check', data: { type: 'check' } }, validate_only: true }])
  })

  it('reports a 403 as a valid credential that is not permitted, with the delay hint', async () => {
    const s = setup()
    await pushLogin({ dir: s.dir, env: { ...s.env, PATH: '/nonexistent' }, out: () => {}, project: 'demo-project' }).catch(() => {})
    writeFileSync(join(s.dir, 'serviceAccount.json'), JSON.stringify(fcm.serviceAccount))
    fcm.behave.set('/topics/herdr-bridge-status-check', 'forbidden')
    try {
      await expect(pushStatus({ dir: s.dir, env: s.env, home: s.home, out: s.out, httpAgent: fcm.agent })).rejects.toThrow('push: credential not permitted')
    } finally {
      fcm.behave.delete('/topics/herdr-bridge-status-check')
    }
    expect(s.lines[1]).toMatch(/^Send permission: credential valid but not permitted to send for project demo-project \(.*cloudmessaging\.messages\.create/)
    expect(s.lines[2]).toBe('Grant the "Firebase Cloud Messaging API Admin" role (and enable the FCM API); a new grant can take a minute to apply.')
  })
})

describe('bridge push login', () => {
  it('without gcloud saves the project and says exactly what to do', async () => {
    const s = setup()
    await expect(pushLogin({ dir: s.dir, env: { ...s.env, PATH: '/nonexistent' }, out: s.out, project: 'my-proj-1' })).rejects.toThrow('push login: gcloud not found')
    expect(JSON.parse(readFileSync(join(s.dir, 'config.json'), 'utf8')).push).toEqual({ project_id: 'my-proj-1' })
    expect(s.lines[1]).toBe('gcloud (the Google Cloud CLI) is not installed, so no login was run. Either:')
    expect(s.lines).toContain(`     and save it as ${join(s.dir, 'serviceAccount.json')}`)
  })

  it('refuses a missing or malformed project id', async () => {
    const s = setup()
    await expect(pushLogin({ dir: s.dir, env: s.env, out: s.out })).rejects.toThrow('push login needs the Firebase project id: npx bridge push login --project <project-id>')
    await expect(pushLogin({ dir: s.dir, env: s.env, out: s.out, project: '--scopes=x' })).rejects.toThrow('is not a Firebase/Google Cloud project id')
  })

  it('runs gcloud application-default login with the messaging scope, then checks the user credential', async () => {
    const s = setup()
    // A stand-in gcloud: records its arguments and writes user credentials where gcloud would.
    const bin = join(s.base, 'bin')
    mkdirSync(bin)
    const adc = join(s.home, 'gcloud', 'application_default_credentials.json')
    writeFileSync(
      join(bin, 'gcloud'),
      `#!/bin/sh\nprintf '%s\\n' "$@" > "${join(s.base, 'gcloud-args')}"\nmkdir -p "$CLOUDSDK_CONFIG"\nprintf '%s' '${JSON.stringify({ type: 'authorized_user', client_id: 'cid', client_secret: 'secret', refresh_token: USER_REFRESH_TOKEN })}' > "${adc}"\n`,
    )
    chmodSync(join(bin, 'gcloud'), 0o755)
    const before = fcm.requests.length
    await pushLogin({ dir: s.dir, env: { ...s.env, PATH: `${bin}:/usr/bin:/bin` }, home: s.home, out: s.out, project: 'user-proj', httpAgent: fcm.agent })
    expect(readFileSync(join(s.base, 'gcloud-args'), 'utf8').trim().split('\n')).toEqual(['auth', 'application-default', 'login', `--scopes=${LOGIN_SCOPES.join(',')}`])
    expect(LOGIN_SCOPES).toContain('https://www.googleapis.com/auth/firebase.messaging')
    expect(s.lines).toEqual([
      `Saved push.project_id = user-proj in ${join(s.dir, 'config.json')}`,
      `Credentials: authorized user from ${adc} (gcloud), project user-proj`,
      'Send permission: ok (a validate-only send to project user-proj was accepted)',
    ])
    // User credentials are billed to the project: FCM gets it as the quota project.
    expect(fcm.requests.slice(before).map((r) => [r.project, r.quotaProject])).toEqual([['user-proj', 'user-proj']])
    expect(process.env.GOOGLE_CLOUD_QUOTA_PROJECT).toBeUndefined()
  })
})
