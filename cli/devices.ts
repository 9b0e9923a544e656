import { adminClient, CliError, type TargetOptions } from './admin-client.ts'
import { bridgeCommand } from './errors.ts'
import { termSafe } from '../lib/strings.ts'

interface Device {
  id: string
  name: string
  paired_at: number
  last_seen?: number
  has_push_token: boolean
}

export async function listDevices(opts: TargetOptions & { json?: boolean }): Promise<void> {
  const { devices } = await adminClient(opts).call<{ devices: Device[] }>('GET', '/admin/devices')
  if (opts.json) return void console.log(JSON.stringify(devices, null, 2))
  if (!devices.length) return void console.log(`No paired devices. Pair one with \`${bridgeCommand('pair')}\`.`)
  const fmt = (t?: number) => (t ? new Date(t).toISOString().replace('T', ' ').slice(0, 19) : '-')
  console.log(['ID'.padEnd(10), 'NAME'.padEnd(24), 'PAIRED'.padEnd(20), 'LAST SEEN'.padEnd(20), 'PUSH'].join(' '))
  for (const d of devices)
    console.log([d.id.padEnd(10), termSafe(String(d.name), 24).padEnd(24), fmt(d.paired_at).padEnd(20), fmt(d.last_seen).padEnd(20), d.has_push_token ? 'yes' : 'no'].join(' '))
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
