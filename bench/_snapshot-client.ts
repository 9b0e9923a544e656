// Child process for bench/snapshot: the timed client, on its own event loop so its decoding does
// not share the bridge's CPU. Each round reads herdr's raw `session.snapshot` of every session (the
// floor), then GET /snapshot once per Accept-Encoding it names, each read ending when the body is
// decoded and parsed (as the floor's answers are). Prints one JSON line of timings and exits.
import { Agent, request } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { herdrRequest } from '../core/herdr/socket.ts'

export interface ClientPlan {
  url: string
  token: string
  sockets: { path: string; session: string }[]
  rounds: number
  warmup: number
  /** Accept-Encoding values, one timed read each per round; '' sends none. */
  encodings: string[]
}

export interface ClientResult {
  floor: number[]
  reads: Record<string, number[]>
  /** Body bytes as they came off the wire, and the Content-Encoding the bridge chose. */
  wire: Record<string, { bytes: number; encoding: string }>
  tiny: number[]
  parse: number[]
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 })

function get(plan: ClientPlan, path: string, acceptEncoding: string): Promise<{ body: Buffer; encoding: string }> {
  const u = new URL(path, plan.url)
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${plan.token}` }
    if (acceptEncoding) headers['accept-encoding'] = acceptEncoding
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, headers, agent }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${path} answered ${res.statusCode}`))
        else resolve({ body: Buffer.concat(chunks), encoding: String(res.headers['content-encoding'] ?? 'identity') })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

const decode = (body: Buffer, encoding: string) => (encoding === 'br' ? brotliDecompressSync(body) : encoding === 'gzip' ? gunzipSync(body) : body)

async function read(plan: ClientPlan, acceptEncoding: string): Promise<unknown> {
  const { body, encoding } = await get(plan, '/snapshot', acceptEncoding)
  return JSON.parse(decode(body, encoding).toString('utf8'))
}

const raw = (plan: ClientPlan) => Promise.all(plan.sockets.map((s) => herdrRequest(s.path, 'session.snapshot', {}, { session: s.session })))

async function timed(into: number[], fn: () => Promise<unknown> | unknown): Promise<void> {
  const t = performance.now()
  await fn()
  into.push(performance.now() - t)
}

async function main(plan: ClientPlan): Promise<ClientResult> {
  const out: ClientResult = { floor: [], reads: {}, wire: {}, tiny: [], parse: [] }
  for (const e of plan.encodings) {
    out.reads[e] = []
    const { body, encoding } = await get(plan, '/snapshot', e)
    out.wire[e] = { bytes: body.length, encoding }
  }
  for (let i = 0; i < plan.warmup; i++) await Promise.all([raw(plan), ...plan.encodings.map((e) => read(plan, e))])
  for (let i = 0; i < plan.rounds; i++) {
    await timed(out.floor, () => raw(plan))
    for (const e of plan.encodings) await timed(out.reads[e], () => read(plan, e))
  }
  // Where an answer from memory still spends its time: a tiny answer on the same path, and this
  // client's own parsing of the plain body.
  const text = (await get(plan, '/snapshot', '')).body.toString('utf8')
  for (let i = 0; i < plan.rounds; i++) {
    await timed(out.tiny, async () => JSON.parse((await get(plan, '/healthz', '')).body.toString('utf8')))
    await timed(out.parse, () => JSON.parse(text))
  }
  return out
}

process.stdout.write(JSON.stringify(await main(JSON.parse(process.argv[2]) as ClientPlan)) + '\n', () => process.exit(0))
