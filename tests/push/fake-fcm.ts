import { createServer, Agent as HttpsAgent, type RequestOptions, type Server } from 'node:https'
import type { ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls'
import { execFileSync } from 'node:child_process'
import { generateKeyPairSync, createVerify } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'

/**
 * A local stand-in for Google: one HTTPS server with a self-signed certificate for
 * oauth2.googleapis.com and fcm.googleapis.com. firebase-admin's FCM host is fixed, so the real
 * SDK reaches it through its `httpAgent` option: an agent whose connections all go to this
 * server, with the certificate trusted. The OAuth endpoint checks the service account's signed
 * JWT for real; the FCM endpoint records every message and answers like FCM v1.
 */

/** An FCM v1 message as the bridge sends it on the wire (snake_case, as Google's REST API takes it). */
export interface FcmMessage {
  token?: string
  topic?: string
  data: Record<string, string>
  notification?: { title?: string; body?: string }
  android: { priority?: string; ttl?: string; collapse_key?: string; notification?: { tag?: string; channel_id?: string } & Record<string, unknown> }
  webpush?: Record<string, unknown>
  apns?: Record<string, unknown>
}

export interface FcmRequest {
  project: string
  auth: string
  /** x-goog-user-project (sent for user credentials). */
  quotaProject?: string
  body: { message: FcmMessage; validate_only?: boolean }
}

/** How the fake answers a given token; default 200. */
export type TokenBehaviour = 'unregistered' | 'invalid' | { failFirst: number; status: 500 | 503 | 429 } | 'forbidden'

export interface FakeFcm {
  agent: HttpsAgent
  port: number
  requests: FcmRequest[]
  tokenGrants: { assertion: Record<string, unknown> }[]
  behave: Map<string, TokenBehaviour>
  /** Resolves once at least n FCM requests (any outcome) have arrived. */
  waitForRequests(n: number, timeoutMs?: number): Promise<FcmRequest[]>
  /** A service-account JSON whose key the fake's token endpoint verifies. */
  serviceAccount: Record<string, string>
  close(): Promise<void>
}

export const ACCESS_TOKEN = 'fake-access-token-1'
/** The refresh token of the user credentials the fake accepts. */
export const USER_REFRESH_TOKEN = 'fake-refresh-token'

export async function startFakeFcm(): Promise<FakeFcm> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-fcm-'))
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=fcm.googleapis.com',
      '-addext',
      'subjectAltName=DNS:fcm.googleapis.com,DNS:oauth2.googleapis.com',
    ],
    { stdio: 'ignore' },
  )
  const key = readFileSync(join(dir, 'key.pem'))
  const cert = readFileSync(join(dir, 'cert.pem'))
  rmSync(dir, { recursive: true, force: true })

  const sa = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } })
  const serviceAccount = {
    type: 'service_account',
    project_id: 'demo-project',
    private_key_id: 'k1',
    private_key: sa.privateKey,
    client_email: 'bridge@demo-project.iam.gserviceaccount.com',
    client_id: '1',
    token_uri: 'https://oauth2.googleapis.com/token',
  }

  const requests: FcmRequest[] = []
  const tokenGrants: FakeFcm['tokenGrants'] = []
  const behave = new Map<string, TokenBehaviour>()
  const attempts = new Map<string, number>()
  const waiters = new Set<() => void>()

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
    res.end(JSON.stringify(body))
  }
  const fcmError = (status: number, code: string, message: string, errorCode?: string) => ({
    error: { code: status, message, status: code, ...(errorCode ? { details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] } : {}) },
  })

  const server: Server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const host = String(req.headers.host ?? '').split(':')[0]
      if (host === 'oauth2.googleapis.com' && req.url === '/token') {
        const form = new URLSearchParams(raw)
        if (form.get('grant_type') === 'refresh_token') {
          if (form.get('refresh_token') !== USER_REFRESH_TOKEN) return reply(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' })
          tokenGrants.push({ assertion: { refresh_token: form.get('refresh_token'), client_id: form.get('client_id') } })
          return reply(res, 200, { access_token: ACCESS_TOKEN, expires_in: 3600, token_type: 'Bearer', scope: 'openid' })
        }
        const jwt = form.get('assertion') ?? ''
        const [h, p, s] = jwt.split('.')
        const v = createVerify('RSA-SHA256')
        v.update(`${h}.${p}`)
        if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' || !s || !v.verify(sa.publicKey, Buffer.from(s, 'base64url'))) {
          return reply(res, 400, { error: 'invalid_grant', error_description: 'bad assertion' })
        }
        tokenGrants.push({ assertion: JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) })
        return reply(res, 200, { access_token: ACCESS_TOKEN, expires_in: 3600, token_type: 'Bearer' })
      }
      const m = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(req.url ?? '')
      if (host !== 'fcm.googleapis.com' || !m || req.method !== 'POST') return reply(res, 404, { error: { code: 404, message: 'no such route', status: 'NOT_FOUND' } })
      const body = JSON.parse(raw)
      const quota = req.headers['x-goog-user-project']
      requests.push({ project: m[1], auth: String(req.headers.authorization ?? ''), ...(quota ? { quotaProject: String(quota) } : {}), body })
      for (const w of waiters) w()
      if (req.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) return reply(res, 401, fcmError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'))
      const token = body?.message?.token ?? `/topics/${body?.message?.topic}`
      const b = behave.get(token)
      const n = (attempts.get(token) ?? 0) + 1
      attempts.set(token, n)
      if (b === 'unregistered') return reply(res, 404, fcmError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED'))
      if (b === 'invalid') return reply(res, 400, fcmError(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', 'INVALID_ARGUMENT'))
      if (b === 'forbidden') return reply(res, 403, fcmError(403, 'PERMISSION_DENIED', "Permission 'cloudmessaging.messages.create' denied"))
      if (b && typeof b === 'object' && n <= b.failFirst)
        return reply(res, b.status, fcmError(b.status, b.status === 429 ? 'RESOURCE_EXHAUSTED' : b.status === 503 ? 'UNAVAILABLE' : 'INTERNAL', 'try again'))
      return reply(res, 200, { name: `projects/${m[1]}/messages/${requests.length}` })
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const port = (server.address() as AddressInfo).port

  // Every connection goes to the fake whatever the host; SNI and certificate checks stay on.
  class LocalAgent extends HttpsAgent {
    createConnection(options: RequestOptions, cb?: (err: Error | null, stream: Duplex) => void) {
      // https.Agent hands its TLS options here; the callback goes in as the secure-connect listener.
      return tlsConnect(
        { ...(options as ConnectionOptions), host: '127.0.0.1', port, servername: (options.servername ?? options.host) as string | undefined, ca: cert },
        cb as (() => void) | undefined,
      )
    }
  }
  const agent = new LocalAgent({ keepAlive: false })

  return {
    agent,
    port,
    requests,
    tokenGrants,
    behave,
    serviceAccount,
    waitForRequests(n, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length >= n) {
            waiters.delete(check)
            clearTimeout(t)
            resolve(requests.slice())
          }
        }
        const t = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`fake FCM saw ${requests.length} requests, wanted ${n}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    async close() {
      agent.destroy()
      server.closeAllConnections?.()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
}

export function writeServiceAccount(path: string, sa: Record<string, string>): void {
  writeFileSync(path, JSON.stringify(sa), { mode: 0o600 })
}
