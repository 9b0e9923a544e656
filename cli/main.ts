import { defineCommand } from 'citty'
import { BRIDGE_VERSION } from '../core/version.ts'
import { fail, runCli } from './run.ts'
import { dirArg, targetArgs } from './args.ts'

// Each command loads its module on demand: a thin client needs none of the daemon's plugins.

const serveCmd = defineCommand({
  meta: { name: 'serve', description: 'Run the bridge daemon' },
  args: {
    ...dirArg,
    addr: { type: 'string', description: 'Listen address host:port (default $BRIDGE_ADDR or 127.0.0.1:8787)' },
    'insecure-data-dir': { type: 'boolean', description: 'Start even when the data dir or the config file is owned or writable by another user (containers; logged)' },
    'tls-cert': { type: 'string', description: 'PEM certificate file: serve HTTPS and WSS (default $BRIDGE_TLS_CERT or transport.tls_cert; reloaded on SIGHUP)' },
    'tls-key': { type: 'string', description: 'PEM private key file for --tls-cert (default $BRIDGE_TLS_KEY or transport.tls_key)' },
    config: { type: 'string', description: 'Plugin config file, .ts or .js (default $BRIDGE_CONFIG, else <data dir>/bridge.config.ts when present)' },
  },
  run: async ({ args }) =>
    (await import('./serve.ts')).serve({
      dir: args.dir,
      addr: args.addr,
      config: args.config,
      insecureDataDir: args['insecure-data-dir'],
      tlsCert: args['tls-cert'],
      tlsKey: args['tls-key'],
    }),
})

const pairCmd = defineCommand({
  meta: { name: 'pair', description: 'Print a one-time pairing QR code for a new device' },
  args: {
    ...targetArgs,
    role: { type: 'string', description: 'Role of the paired device: viewer (watch only), default, or owner (also manages devices)' },
    url: {
      type: 'string',
      description:
        "URL put in the code for the phone (default the bridge's public URL); it does not choose which daemon is asked: that is --addr, else $BRIDGE_ADDR or transport.addr",
    },
    json: { type: 'boolean', description: 'Print only the JSON payload' },
    app: { type: 'boolean', description: 'QR of the JSON payload {url, code} for the mobile app, instead of a link to the web app any camera opens' },
  },
  run: async ({ args }) => (await import('./pair.ts')).pair({ dir: args.dir, addr: args.addr, url: args.url, json: args.json, app: args.app, role: args.role }),
})

const devicesCmd = defineCommand({
  meta: { name: 'devices', description: 'List, revoke or change the role of paired devices' },
  subCommands: {
    list: defineCommand({
      meta: { name: 'list', description: 'List paired devices' },
      args: { ...targetArgs, json: { type: 'boolean', description: 'Print JSON' } },
      run: async ({ args }) => (await import('./devices.ts')).listDevices(args),
    }),
    revoke: defineCommand({
      meta: { name: 'revoke', description: 'Revoke a device by id' },
      args: { ...targetArgs, id: { type: 'positional', description: 'Device id (from `bridge devices list`)', required: true } },
      run: async ({ args }) => (await import('./devices.ts')).revokeDevice(args),
    }),
    role: defineCommand({
      meta: { name: 'role', description: "Change a device's role (promote to owner, or make it a viewer)" },
      args: {
        ...targetArgs,
        id: { type: 'positional', description: 'Device id (from `bridge devices list`)', required: true },
        role: { type: 'positional', description: 'viewer, default or owner', required: true },
      },
      run: async ({ args }) => (await import('./devices.ts')).setDeviceRole(args),
    }),
  },
})

const statusCmd = defineCommand({
  meta: { name: 'status', description: 'Whether the daemon runs and reaches herdr (exit 0 only then); also lists every bridge running for this user' },
  args: { ...targetArgs, json: { type: 'boolean', description: 'Print JSON' } },
  run: async ({ args }) => {
    process.exitCode = await (await import('./status.ts')).status(args)
  },
})

const doctorCmd = defineCommand({
  meta: { name: 'doctor', description: 'Check this machine’s setup: Node, herdr, git, data dir, port, public URL, push' },
  args: { ...dirArg, addr: { type: 'string', description: 'Listen address to check (default $BRIDGE_ADDR or transport.addr)' } },
  run: async ({ args }) => {
    process.exitCode = await (await import('./doctor.ts')).doctor({ dir: args.dir, addr: args.addr })
  },
})

const pushCmd = defineCommand({
  meta: { name: 'push', description: 'Push notification credentials' },
  subCommands: {
    login: defineCommand({
      meta: { name: 'login', description: 'Log in with gcloud user credentials for a Firebase project' },
      args: { ...targetArgs, project: { type: 'string', description: 'Firebase project id' } },
      run: async ({ args }) => (await import('./push.ts')).pushLogin({ dir: await pushDir(args), project: args.project }),
    }),
    status: defineCommand({
      meta: { name: 'status', description: 'Show which push credentials are used and whether they may send' },
      args: targetArgs,
      run: async ({ args }) => (await import('./push.ts')).pushStatus({ dir: await pushDir(args) }),
    }),
  },
})

/** push works on a data dir; --url/--addr name the running bridge whose data dir to use. */
async function pushDir(args: { dir?: string; url?: string; addr?: string }): Promise<string | undefined> {
  if (args.dir || (!args.url && !args.addr)) return args.dir
  const { resolveTarget } = await import('./admin-client.ts')
  const { readRunFile } = await import('./runfile.ts')
  const t = resolveTarget(args)
  return readRunFile(t.port)?.data_dir ?? t.dataDir
}

const serviceArgs = { ...dirArg, addr: { type: 'string', description: 'Listen address for the service (default 127.0.0.1:8787)' } } as const
const serviceCmd = defineCommand({
  meta: { name: 'service', description: 'Run the bridge as a service (systemd user unit on Linux, launchd agent on macOS)' },
  subCommands: {
    install: defineCommand({
      meta: { name: 'install', description: 'Write, enable and start the service' },
      args: { ...serviceArgs, print: { type: 'boolean', description: 'Print the unit to stdout instead of installing it' } },
      run: async ({ args }) => (await import('./service.ts')).serviceInstall(args),
    }),
    uninstall: defineCommand({
      meta: { name: 'uninstall', description: 'Stop, disable and remove the service' },
      run: async () => (await import('./service.ts')).serviceUninstall(),
    }),
    status: defineCommand({
      meta: { name: 'status', description: "The service manager's view of the service" },
      run: async () => {
        process.exitCode = await (await import('./service.ts')).serviceStatus()
      },
    }),
    logs: defineCommand({
      meta: { name: 'logs', description: 'Show the service log' },
      args: { follow: { type: 'boolean', alias: 'f', description: 'Keep printing new lines' }, lines: { type: 'string', alias: 'n', description: 'How many lines (default 100)' } },
      run: async ({ args }) => (await import('./service.ts')).serviceLogs({ follow: args.follow, lines: args.lines }),
    }),
  },
})

const main = defineCommand({
  meta: { name: 'bridge', version: BRIDGE_VERSION, description: 'herdr-bridge: watch and drive herdr agents from phones and browsers' },
  subCommands: {
    serve: serveCmd,
    pair: pairCmd,
    devices: devicesCmd,
    status: statusCmd,
    doctor: doctorCmd,
    push: pushCmd,
    service: serviceCmd,
    notify: () => import('./notify.ts').then((m) => m.notifyCmd),
  },
})

process.on('unhandledRejection', (err) => fail(err))
process.on('uncaughtException', (err) => fail(err))

await runCli(main, process.argv.slice(2), BRIDGE_VERSION)
