import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import { createServer as createTcpServer, type Server as TcpServer, type AddressInfo } from 'node:net'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { parseProcNetTcp } from '../../lib/ports/proc.ts'
import { parseLsof } from '../../lib/ports/lsof.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

const listen = (s: Server | TcpServer, host: string) => new Promise<number>((ok) => s.listen(0, host, () => ok((s.address() as AddressInfo).port)))

describe('listener parsing', () => {
  it('reads LISTEN rows of /proc/net/tcp and tcp6', () => {
    const v4 = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 1 0000000000000000 100 0 0 10 0',
      '   1: 00000000:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 23456 1 0000000000000000 100 0 0 10 0',
      '   2: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 34567 1 0000000000000000 100 0 0 10 0',
    ].join('\n')
    expect(parseProcNetTcp(v4, false)).toEqual([
      { inode: '12345', bind: '127.0.0.1', port: 8080 },
      { inode: '23456', bind: '0.0.0.0', port: 3000 },
    ])
    const v6 = [
      'header',
      '   0: 00000000000000000000000001000000:1538 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 777 1',
      '   1: 00000000000000000000000000000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 778 1',
      '   2: 0000000000000000FFFF00000100007F:0051 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 779 1',
    ].join('\n')
    expect(parseProcNetTcp(v6, true)).toEqual([
      { inode: '777', bind: '::1', port: 5432 },
      { inode: '778', bind: '::', port: 80 },
      { inode: '779', bind: '::ffff:127.0.0.1', port: 81 },
    ])
  })

  it('reads lsof field output, skipping connections', () => {
    expect(parseLsof('p10\ncnode\nn*:3000\nn[::1]:5173\nn127.0.0.1:1->127.0.0.1:2\np11\ncpython3\nn10.0.0.5:8000\n')).toEqual([
      { pid: 10, proc: 'node', bind: '*', port: 3000 },
      { pid: 10, proc: 'node', bind: '::1', port: 5173 },
      { pid: 11, proc: 'python3', bind: '10.0.0.5', port: 8000 },
    ])
  })
})

describe('GET /ports without herdr', () => {
  let b: TestBridge
  const http = createServer((_req, res) => res.end('ok'))
  const local = createServer((_req, res) => res.end('ok'))
  const tcp = createTcpServer((s) => s.end('SSH-2.0-not-http\r\n'))
  let ports: { http: number; local: number; tcp: number }
  beforeAll(async () => {
    ports = { http: await listen(http, '0.0.0.0'), local: await listen(local, '127.0.0.1'), tcp: await listen(tcp, '0.0.0.0') }
    b = await startBridge()
  })
  afterAll(async () => {
    await b.close()
    http.close()
    local.close()
    tcp.close()
  })

  it('lists HTTP listeners of this process with bind, loopback and url, and drops non-HTTP ones', async () => {
    const res = await b.request('/ports')
    expect(res.status).toBe(200)
    const mine = ((await res.json()) as GetResponses['/ports']).ports.filter((p) => p.pid === process.pid && p.port !== Number(new URL(b.url).port))
    const host = new URL(b.url).hostname
    expect(mine).toEqual(
      [
        { port: ports.http, bind: '*', pid: process.pid, proc: expect.any(String), loopback: false, url: `http://${host}:${ports.http}` },
        { port: ports.local, bind: '127.0.0.1', pid: process.pid, proc: expect.any(String), loopback: true },
      ].sort((a, b) => a.port - b.port),
    )
  })

  it('filters by pane', async () => {
    const res = await b.request('/ports?pane=w1:p1')
    expect(await res.json()).toEqual({ ports: [] })
  })
})
