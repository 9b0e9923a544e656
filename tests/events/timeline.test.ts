// The timeline across a bridge restart: entries restored from disk, spans rebuilt from herdr,
// durations still known for the first transition after the restart.
import { test, expect, afterAll } from 'vitest'
import { startStack, type Stack } from '../harness/stack.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { openEvents } from './ws-client.ts'
import { isStatus, newPane, setStatus } from './common.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

let st: Stack
let second: TestBridge | undefined
afterAll(async () => {
  await second?.close()
  await st?.close()
})

const timeline = async (b: TestBridge, q = '') => (await (await b.request(`/timeline${q}`)).json()) as GetResponses['/timeline']

test('timeline survives a bridge restart with durations intact', async () => {
  st = await startStack()
  await st.bridge.bridge.ingest!.settled()
  const { pane, workspace } = await newPane(st.sim)
  const c = openEvents(`${st.bridge.wsUrl}/events?token=${st.bridge.adminToken}`)
  await c.next((f) => f.type === 'snapshot')
  await setStatus(st.sim, pane, 'working')
  const w = await c.next(isStatus(pane, 'working'))
  await setStatus(st.sim, pane, 'blocked')
  const bl = await c.next(isStatus(pane, 'blocked'))
  c.close()

  const before = await timeline(st.bridge, `?pane=${pane}`)
  expect(before.entries).toEqual([
    { ts: bl.ts, pane, agent: 'sim-agent', session: 'default', workspace, from: 'working', to: 'blocked', prev_ms: bl.ts - w.ts },
    { ts: w.ts, pane, agent: 'sim-agent', session: 'default', workspace, to: 'working' },
  ])

  await st.bridge.close()
  second = await startBridge({ home: st.home })
  expect((await timeline(second, `?pane=${pane}`)).entries).toEqual(before.entries)
  await second.bridge.ingest!.settled()

  const c2 = openEvents(`${second.wsUrl}/events?token=${second.adminToken}`)
  await c2.next((f) => f.type === 'snapshot')
  await setStatus(st.sim, pane, 'working')
  const w2 = await c2.next(isStatus(pane, 'working'))
  c2.close()
  const after = await timeline(second, `?pane=${pane}&limit=1`)
  expect(after).toEqual({
    limit: 1,
    entries: [{ ts: w2.ts, pane, agent: 'sim-agent', session: 'default', workspace, from: 'blocked', to: 'working', prev_ms: w2.ts - bl.ts }],
  })
  // No entry was written for the restart itself.
  expect((await timeline(second, `?pane=${pane}`)).entries.length).toBe(3)
})
