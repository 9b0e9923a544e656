import { defineCommand, runMain } from 'citty'
import { consola } from 'consola'
import { renderUnicodeCompact } from 'uqr'
import { BRIDGE_VERSION } from '../core/version.ts'
import { adminClient, CliError } from './admin-client.ts'

const dirArg = { dir: { type: 'string', description: 'Data dir (default $BRIDGE_DIR or ~/.herdr-bridge)' } } as const

const serveCmd = defineCommand({
  meta: { name: 'serve', description: 'Run the bridge daemon' },
  args: {
    ...dirArg,
    addr: { type: 'string', description: 'Listen address host:port (default 127.0.0.1:8787)' },
    config: { type: 'string', description: 'Plugin config file, .ts or .js (default $BRIDGE_CONFIG, else <data dir>/bridge.config.ts when present)' },
  },
  // Loaded on demand: the other commands are thin clients and need none of the plugins.
  run: async ({ args }) => (await import('./serve.ts')).serve({ dir: args.dir, addr: args.addr, config: args.config }),
})

const pairCmd = defineCommand({
  meta: { name: 'pair', description: 'Print a one-time pairing QR code for a new device' },
  args: { ...dirArg, json: { type: 'boolean', description: 'Print only the JSON payload' } },
  async run({ args }) {
    const admin = adminClient({ dir: args.dir })
    const r = await admin.call<{ code: string; url: string }>('POST', '/admin/pairing')
    const payload = JSON.stringify({ url: r.url, code: r.code })
    if (args.json) return void console.log(payload)
    console.log(renderUnicodeCompact(payload))
    console.log(`\nScan with the app, or enter by hand:\n  url:  ${r.url}\n  code: ${r.code}   (valid 5 minutes, one use)\n\n${payload}`)
  },
})

const devicesCmd = defineCommand({
  meta: { name: 'devices', description: 'List or revoke paired devices' },
  subCommands: {
    list: defineCommand({
      meta: { name: 'list', description: 'List paired devices' },
      args: { ...dirArg, json: { type: 'boolean', description: 'Print JSON' } },
      async run({ args }) {
        const { devices } = await adminClient({ dir: args.dir }).call<{ devices: any[] }>('GET', '/admin/devices')
        if (args.json) return void console.log(JSON.stringify(devices, null, 2))
        if (!devices.length) return void console.log('No paired devices. Pair one with `bridge pair`.')
        const fmt = (t?: number) => (t ? new Date(t).toISOString().replace('T', ' ').slice(0, 19) : '-')
        console.log(['ID'.padEnd(10), 'NAME'.padEnd(24), 'PAIRED'.padEnd(20), 'LAST SEEN'.padEnd(20), 'PUSH'].join(' '))
        for (const d of devices) console.log([d.id.padEnd(10), String(d.name).slice(0, 24).padEnd(24), fmt(d.paired_at).padEnd(20), fmt(d.last_seen).padEnd(20), d.has_push_token ? 'yes' : 'no'].join(' '))
      },
    }),
    revoke: defineCommand({
      meta: { name: 'revoke', description: 'Revoke a device by id' },
      args: { ...dirArg, id: { type: 'positional', description: 'Device id (from `bridge devices list`)', required: true } },
      async run({ args }) {
        const r = await adminClient({ dir: args.dir }).call<{ id: string; name: string }>('POST', '/admin/devices/revoke', { id: args.id })
        console.log(`Revoked ${r.id} (${r.name}). Its bearer no longer works.`)
      },
    }),
  },
})

const pushCmd = defineCommand({
  meta: { name: 'push', description: 'Push notification credentials' },
  subCommands: {
    login: defineCommand({
      meta: { name: 'login', description: 'Log in with gcloud user credentials for a Firebase project' },
      args: { ...dirArg, project: { type: 'string', description: 'Firebase project id' } },
      run: async ({ args }) => (await import('./push.ts')).pushLogin({ dir: args.dir, project: args.project }),
    }),
    status: defineCommand({
      meta: { name: 'status', description: 'Show which push credentials are used and whether they may send' },
      args: { ...dirArg },
      run: async ({ args }) => (await import('./push.ts')).pushStatus({ dir: args.dir }),
    }),
  },
})

const main = defineCommand({
  meta: { name: 'bridge', version: BRIDGE_VERSION, description: 'herdr-bridge: watch and drive herdr agents from phones and browsers' },
  subCommands: { serve: serveCmd, pair: pairCmd, devices: devicesCmd, push: pushCmd },
})

process.on('unhandledRejection', (err) => {
  consola.error(err instanceof Error ? err.message : String(err))
  process.exit(1)
})

await runMain(main, {
  showUsage: undefined,
}).catch((err) => {
  console.error(`bridge: ${err?.message ?? err}`)
  process.exit(1)
})
