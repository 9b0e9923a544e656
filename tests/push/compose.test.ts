import { describe, expect, it } from 'vitest'
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { capText, cardForAlert, composeAlert, composeBody, composeTitle, BODY_MAX } from '../../plugins/push/compose.ts'
import { alertMessages, dismissMessage, DEFAULT_ANDROID_CHANNELS } from '../../plugins/notify-fcm/messages.ts'
import { readWebConfig } from '../../plugins/push/web-config.ts'

describe('alert text', () => {
  it('titles with server name and agent title, falling back to the pane id', () => {
    expect(composeTitle('studio', 'Refactor auth', 'w1:p2')).toBe('studio · Refactor auth')
    expect(composeTitle('', 'Refactor auth', 'w1:p2')).toBe('Refactor auth')
    expect(composeTitle('studio', '  ', 'work/w1:p2')).toBe('studio · work/w1:p2')
  })

  it('says what a blocked agent needs, with the first four options', () => {
    expect(composeBody('blocked', null)).toBe('Needs you')
    const card = {
      question: 'Do you want to run\n  rm -rf build?',
      options: [
        { index: 1, label: 'Yes', selected: true },
        { index: 2, label: "Yes, and don't ask again", selected: false },
        { index: 3, label: 'No', selected: false },
        { index: 4, label: 'Four', selected: false },
        { index: 5, label: 'Five', selected: false },
        { index: 0, label: 'Esc to cancel', selected: false, key: 'esc' },
      ],
    }
    expect(composeBody('blocked', card)).toBe("Needs you — Do you want to run rm -rf build? · 1. Yes / 2. Yes, and don't ask again / 3. No / 4. Four")
    expect(composeBody('blocked', { question: 'Pick', options: [{ index: 0, label: 'Cancel', selected: false, key: 'esc' }] })).toBe('Needs you — Pick · Cancel')
  })

  it('says what a finished agent did, from the headline or the first detail line', () => {
    expect(composeBody('done', null)).toBe('Finished')
    expect(composeBody('done', { headline: 'Tests pass' })).toBe('Finished — Tests pass')
    expect(composeBody('done', { headline: '', detail: '\n  All 12 files updated\nmore' })).toBe('Finished — All 12 files updated')
  })

  it('caps the body at 240 characters without splitting a character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 600 }), (q) => {
        const body = composeBody('blocked', { question: q })
        expect(Array.from(body).length).toBeLessThanOrEqual(BODY_MAX)
        expect(Buffer.from(body, 'utf8').toString('utf8')).toBe(body)
      }),
    )
    expect(capText('😀'.repeat(300))).toBe('😀'.repeat(239) + '…')
  })
})

describe('FCM messages', () => {
  const card = cardForAlert({
    headline: 'Allow Bash?',
    blocked: {
      question: 'Run npm test?',
      options: [
        { index: 1, label: 'Yes', selected: true },
        { index: 0, label: 'No', selected: false, key: 'esc' },
      ],
      category: 'tool_approval',
    },
  })
  const alert = composeAlert({ serverId: 'abcd', serverName: 'studio', pane: 'work/w1:p2', status: 'blocked', seq: 7, agentTitle: 'claude', card })

  it('carries every data key of spec 1 §6.1 as strings, the tag and both renders', () => {
    const [os, app] = alertMessages('tok', alert, DEFAULT_ANDROID_CHANNELS)
    const data = {
      type: 'alert',
      agent: 'work/w1:p2',
      status: 'blocked',
      state_change_seq: '7',
      server_id: 'abcd',
      server_name: 'studio',
      agent_title: 'claude',
      title: 'studio · claude',
      body: 'Needs you — Run npm test? · 1. Yes / No',
      question: 'Run npm test?',
      options: '[{"index":1,"label":"Yes","selected":true},{"index":0,"label":"No","selected":false,"key":"esc"}]',
      category: 'tool_approval',
    }
    expect(os).toEqual({
      token: 'tok',
      data: { ...data, render: 'os' },
      notification: { title: 'studio · claude', body: 'Needs you — Run npm test? · 1. Yes / No' },
      android: { priority: 'high', collapseKey: 'abcd/work/w1:p2', notification: { tag: 'abcd/work/w1:p2', channelId: 'gothalo_blocked', priority: 'high', defaultSound: true } },
      webpush: { headers: { Urgency: 'high', TTL: '3600' } },
    })
    expect(app).toEqual({
      token: 'tok',
      data: { ...data, render: 'app' },
      android: { priority: 'high', collapseKey: 'abcd/work/w1:p2' },
      webpush: { headers: { Urgency: 'high', TTL: '3600' } },
    })
    for (const v of Object.values(app.data!)) expect(typeof v).toBe('string')
  })

  it('leaves question/options/category off a done alert and seq off when unknown', () => {
    const done = composeAlert({ serverId: 's', serverName: 'n', pane: 'w1:p1', status: 'done', agentTitle: 't', card })
    expect(Object.keys(done.data).sort()).toEqual(['agent', 'agent_title', 'body', 'server_id', 'server_name', 'status', 'title', 'type'])
    const [os] = alertMessages('tok', done, { blocked: 'b', done: 'my_done' })
    expect(os.android?.notification?.channelId).toBe('my_done')
  })

  it('dismisses with data only: type, agent, server_id', () => {
    expect(dismissMessage('tok', 'abcd', 'w1:p2')).toEqual({
      token: 'tok',
      data: { type: 'dismiss', agent: 'w1:p2', server_id: 'abcd' },
      android: { priority: 'high', collapseKey: 'abcd/w1:p2' },
      webpush: { headers: { Urgency: 'high', TTL: '3600' } },
    })
  })
})

describe('web push config file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webcfg-'))
  const full = { apiKey: 'k', authDomain: 'p.firebaseapp.com', projectId: 'p', storageBucket: 'p.appspot.com', messagingSenderId: '1', appId: '1:1:web:1', vapidKey: 'BVAPID' }
  it('is 404 when absent, 503 when broken, camelCase when present (snake_case accepted)', () => {
    expect(readWebConfig(dir)).toEqual({ ok: false, status: 404, message: 'web push is not configured on this bridge (no firebase-web.json in its data dir)' })
    writeFileSync(join(dir, 'firebase-web.json'), '{')
    expect(readWebConfig(dir)).toMatchObject({ ok: false, status: 503, message: 'firebase-web.json is not valid JSON' })
    writeFileSync(join(dir, 'firebase-web.json'), JSON.stringify({ ...full, vapidKey: '' }))
    expect(readWebConfig(dir)).toMatchObject({ ok: false, status: 503, message: 'firebase-web.json lacks vapidKey' })
    writeFileSync(
      join(dir, 'firebase-web.json'),
      JSON.stringify({
        api_key: 'k',
        auth_domain: 'p.firebaseapp.com',
        project_id: 'p',
        storage_bucket: 'p.appspot.com',
        messaging_sender_id: '1',
        app_id: '1:1:web:1',
        vapid_key: 'BVAPID',
      }),
    )
    expect(readWebConfig(dir)).toEqual({ ok: true, config: full })
    rmSync(dir, { recursive: true, force: true })
  })
})
