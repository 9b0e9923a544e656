import { adminClient, CliError, type TargetOptions } from './admin-client.ts'
import { bridgeCommand } from './errors.ts'
import { termSafe } from '../lib/strings.ts'

interface Device {
  id: string
  name: string
  paired_at: number
  last_seen?: number
  has_push_token: boolean
  role?: string
}

export async function listDevices(opts: TargetOptions & { json?: boolean }): Promise<void> {
  const { devices } = await adminClient(opts).call<{ devices: Device[] }>('GET', '/admin/devices')
  if (opts.json) return void console.log(JSON.stringify(devices, null, 2))
  if (!devices.length) return void console.log(`No paired devices. Pair one with \`${bridgeCommand('pair')}\`.`)
  const fmt = (t?: number) => (t ? new Date(t).toISOString().replace('T', ' ').slice(0, 19) : '-')
  console.log(['ID'.padEnd(10), 'NAME'.padEnd(24), 'ROLE'.padEnd(8), 'PAIRED'.padEnd(20), 'LAST SEEN'.padEnd(20), 'PUSH'].join(' '))
  for (const d of devices)
    console.log(
      [
        d.id.padEnd(10),
        termSafe(String(d.name), 24).padEnd(24),
        (d.role ?? 'default').padEnd(8),
        fmt(d.paired_at).padEnd(20),
        fmt(d.last_seen).padEnd(20),
        d.has_push_token ? 'yes' : 'no',
      ].join(' '),
    )
}

export async function revokeDevice(opts: TargetOptions & { id: string }): Promise<void> {
  let r: { id: string; name: string }
  try {
    r = await adminClient(opts).call<{ id: string; name: string }>('POST', '/admin/devices/revoke', { id: opts.id })
  } catch (err) {
    if (err instanceof CliError && err.message.startsWith('no device ')) throw new CliError(`${err.message}; list paired devices with \`${bridgeCommand('devices list')}\``)
    throw err
  }
  console.log(`Revoked ${termSafe(r.id)} (${termSafe(r.name)}). Its bearer no longer works.`)
}

export async function setDeviceRole(opts: TargetOptions & { id: string; role: string }): Promise<void> {
  if (!['viewer', 'default', 'owner'].includes(opts.role))
    throw new CliError(`bad role ${JSON.stringify(opts.role)}: want viewer (watch only), default or owner (also manages devices)`)
  let r: { id: string; name: string; role: string }
  try {
    r = await adminClient(opts).call<{ id: string; name: string; role: string }>('POST', '/admin/devices/role', { id: opts.id, role: opts.role })
  } catch (err) {
    if (err instanceof CliError && err.message.startsWith('no device ')) throw new CliError(`${err.message}; list paired devices with \`${bridgeCommand('devices list')}\``)
    throw err
  }
  console.log(`${r.id} (${r.name}) is now ${r.role}; it applies to the device's next request.`)
}
