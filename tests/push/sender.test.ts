import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startFakeFcm, ACCESS_TOKEN, type FakeFcm } from './fake-fcm.ts'
import { createFcmSender, isDeadToken } from '../../plugins/notify-fcm/sender.ts'
import { findCredential, CredentialError, gcloudAdcPath } from '../../plugins/notify-fcm/credentials.ts'

let fcm: FakeFcm
let dir: string
beforeAll(async () => {
  fcm = await startFakeFcm()
  dir = mkdtempSync(join(tmpdir(), 'push-cred-'))
})
afterAll(async () => {
  await fcm?.close()
  rmSync(dir, { recursive: true, force: true })
})

const noMetadata = { GCE_METADATA_HOST: '127.0.0.1:1' }

describe('credential search order', () => {
  it('finds nothing when no source exists (metadata server unreachable)', async () => {
    const c = await findCredential({ push: { service_account_path: join(dir, 'none.json'), project_id: '' }, env: noMetadata, home: join(dir, 'home-none') })
    expect(c).toBeNull()
  })

  it('prefers push.service_account_path over GOOGLE_APPLICATION_CREDENTIALS and gcloud', async () => {
    const sa = join(dir, 'sa.json')
    writeFileSync(sa, JSON.stringify(fcm.serviceAccount))
    const other = join(dir, 'other.json')
    writeFileSync(other, JSON.stringify({ ...fcm.serviceAccount, project_id: 'other' }))
    const c = await findCredential({ push: { service_account_path: sa, project_id: '' }, env: { ...noMetadata, GOOGLE_APPLICATION_CREDENTIALS: other }, home: dir })
    expect(c).toMatchObject({ source: 'config', path: sa, type: 'service_account', projectId: 'demo-project', identity: 'bridge@demo-project.iam.gserviceaccount.com' })
  })

  it('falls to GOOGLE_APPLICATION_CREDENTIALS, then the gcloud file with user credentials needing a project', async () => {
    const other = join(dir, 'gac.json')
    writeFileSync(other, JSON.stringify({ ...fcm.serviceAccount, project_id: 'gac-project' }))
    const viaEnv = await findCredential({
      push: { service_account_path: join(dir, 'missing.json'), project_id: '' },
      env: { ...noMetadata, GOOGLE_APPLICATION_CREDENTIALS: other },
      home: dir,
    })
    expect(viaEnv).toMatchObject({ source: 'GOOGLE_APPLICATION_CREDENTIALS', projectId: 'gac-project' })

    const home = join(dir, 'home-user')
    const adc = gcloudAdcPath({}, home)
    expect(adc).toBe(join(home, '.config/gcloud/application_default_credentials.json'))
    mkdirSync(join(home, '.config/gcloud'), { recursive: true })
    writeFileSync(adc, JSON.stringify({ type: 'authorized_user', client_id: 'c', client_secret: 's', refresh_token: 'r' }))
    await expect(findCredential({ push: { service_account_path: '', project_id: '' }, env: noMetadata, home })).rejects.toThrow(/need a project.*push login --project/)
    const withProject = await findCredential({ push: { service_account_path: '', project_id: 'mine' }, env: noMetadata, home })
    expect(withProject).toMatchObject({ source: 'gcloud', type: 'authorized_user', projectId: 'mine', path: adc })
  })

  it('a present but unparseable file is an error naming it, not a silent skip', async () => {
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, '{not json')
    await expect(findCredential({ push: { service_account_path: bad, project_id: '' }, env: noMetadata, home: dir })).rejects.toThrow(CredentialError)
    await expect(findCredential({ push: { service_account_path: bad, project_id: '' }, env: noMetadata, home: dir })).rejects.toThrow(`push credentials ${bad} is not valid JSON`)
  })

  it('uses the metadata server when no file exists, asking for the messaging scope', async () => {
    const seen: string[] = []
    const md = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers['metadata-flavor']}`)
      res.setHeader('metadata-flavor', 'Google')
      if (req.url === '/computeMetadata/v1/project/project-id') return res.end('gce-project')
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ access_token: 'md-token', expires_in: 1800, token_type: 'Bearer' }))
    })
    await new Promise<void>((r) => md.listen(0, '127.0.0.1', () => r()))
    try {
      const host = `127.0.0.1:${(md.address() as AddressInfo).port}`
      const c = await findCredential({ push: { service_account_path: join(dir, 'none.json'), project_id: '' }, env: { GCE_METADATA_HOST: host }, home: join(dir, 'home-none') })
      expect(c).toMatchObject({ source: 'metadata', type: 'metadata', projectId: 'gce-project' })
      expect(await c!.credential.getAccessToken()).toEqual({ access_token: 'md-token', expires_in: 1800 })
      expect(seen).toEqual([
        '/computeMetadata/v1/project/project-id Google',
        '/computeMetadata/v1/instance/service-accounts/default/token?scopes=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Ffirebase.messaging Google',
      ])
    } finally {
      md.close()
    }
  })
})

describe('FCM sender (real firebase-admin against the local fake)', () => {
  it('signs a JWT for the service account, then posts FCM v1 messages with the access token', async () => {
    const sa = join(dir, 'sa-send.json')
    writeFileSync(sa, JSON.stringify(fcm.serviceAccount))
    const cred = await findCredential({ push: { service_account_path: sa, project_id: '' }, env: noMetadata, home: dir, httpAgent: fcm.agent })
    const sender = createFcmSender({ credential: cred!.credential, projectId: cred!.projectId, httpAgent: fcm.agent, backoffMs: [10, 20] })
    try {
      const before = fcm.requests.length
      const r = await sender.send({ token: 'tok-ok', data: { a: '1' } })
      expect(r).toEqual({ ok: true, id: `projects/demo-project/messages/${before + 1}` })
      const req = fcm.requests.at(-1)!
      expect(req).toEqual({ project: 'demo-project', auth: `Bearer ${ACCESS_TOKEN}`, body: { message: { token: 'tok-ok', data: { a: '1' } } } })
      expect(fcm.tokenGrants.at(-1)!.assertion).toMatchObject({ iss: 'bridge@demo-project.iam.gserviceaccount.com', aud: 'https://oauth2.googleapis.com/token' })
      expect(String(fcm.tokenGrants.at(-1)!.assertion.scope)).toContain('https://www.googleapis.com/auth/firebase.messaging')

      // Dead tokens are reported as dead; 500 is retried until it succeeds; 403 is not dead.
      fcm.behave.set('tok-dead', 'unregistered')
      fcm.behave.set('tok-invalid', 'invalid')
      fcm.behave.set('tok-flaky', { failFirst: 2, status: 500 })
      fcm.behave.set('tok-forbidden', 'forbidden')
      expect(await sender.send({ token: 'tok-dead', data: {} })).toMatchObject({ ok: false, dead: true, code: 'messaging/registration-token-not-registered' })
      expect(await sender.send({ token: 'tok-invalid', data: {} })).toMatchObject({ ok: false, dead: true, code: 'messaging/invalid-argument' })
      const n = fcm.requests.length
      expect(await sender.send({ token: 'tok-flaky', data: {} })).toMatchObject({ ok: true })
      expect(fcm.requests.length - n).toBe(3)
      expect(await sender.send({ token: 'tok-forbidden', data: {} })).toMatchObject({ ok: false, dead: false, code: 'messaging/mismatched-credential' })
      // Validate-only sends carry validate_only, as `push status` uses them.
      await sender.send({ token: 'tok-ok', data: {} }, { dryRun: true })
      expect(fcm.requests.at(-1)!.body.validate_only).toBe(true)
    } finally {
      await sender.close()
    }
  })

  it('classifies dead tokens only from token errors', () => {
    expect(isDeadToken('messaging/registration-token-not-registered', '')).toBe(true)
    expect(isDeadToken('messaging/invalid-argument', 'The registration token is not a valid FCM registration token')).toBe(true)
    expect(isDeadToken('messaging/invalid-argument', 'Invalid value at message.android.ttl')).toBe(false)
    expect(isDeadToken('messaging/internal-error', '')).toBe(false)
  })
})
