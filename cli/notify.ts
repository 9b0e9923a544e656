import { defineCommand } from 'citty'
import { adminClient, CliError, type TargetOptions } from './admin-client.ts'
import { targetArgs } from './args.ts'

/**
 * `bridge notify test [--channel <name>]`: the daemon sends a test alert through each channel (or
 * one) and this prints one line per channel: sent, or why not. The channels are the daemon's own
 * (its running registry, the shipped ones named even when not loaded), so a channel added by a
 * plugin in a user config is testable here without a CLI change.
 */

interface ChannelLine {
  channel: string
  sent: number
  total: number
  enabled: boolean
  note?: string
  /** Per subscription (Web Push): what its push service answered. */
  targets?: { target: string; ok: boolean; answer: string }[]
}

export function formatChannel(c: ChannelLine): string {
  const name = c.channel.padEnd(8)
  if (c.sent > 0 && c.sent === c.total) return `${name} sent to ${c.total} target${c.total === 1 ? '' : 's'}`
  if (c.sent > 0) return `${name} sent to ${c.sent} of ${c.total}: ${c.note ?? 'some failed (see the bridge log)'}`
  return `${name} not sent: ${c.note ?? (c.total ? 'every target failed (see the bridge log)' : 'no targets')}`
}

export async function notifyTest(
  opts: TargetOptions & {
    channel?: string
    out?: (line: string) => void
    call?: (body: unknown) => Promise<{ channels: ChannelLine[] }>
  },
): Promise<void> {
  const out = opts.out ?? ((l: string) => console.log(l))
  const channel = opts.channel?.trim()
  const call =
    opts.call ??
    ((body: unknown) => adminClient({ dir: opts.dir, addr: opts.addr, url: opts.url, env: opts.env }).call<{ channels: ChannelLine[] }>('POST', '/admin/notify/test', body))
  const r = await call(channel ? { channel } : {}).catch((err) => {
    // The daemon knows which channels run: its refusal names them.
    const known = /^channel: (want one of .*)$/.exec(err instanceof Error ? err.message : '')
    throw known ? new CliError(`unknown channel "${channel}": ${known[1]}`) : err
  })
  for (const c of r.channels) {
    out(formatChannel(c))
    for (const t of c.targets ?? []) out(`  ${t.ok ? '✓' : '✗'} ${t.target}: ${t.answer}`)
  }
  if (!r.channels.some((c) => c.sent > 0)) throw new CliError('no channel delivered the test alert')
}

export const notifyCmd = defineCommand({
  meta: { name: 'notify', description: 'Alert channels (FCM, Web Push, ntfy, webhooks)' },
  subCommands: {
    test: defineCommand({
      meta: { name: 'test', description: 'Send a test alert through each configured channel and say which ones went out' },
      args: {
        ...targetArgs,
        channel: { type: 'string', description: 'Only this channel (fcm, webpush, ntfy, webhook, or one a plugin adds)' },
      },
      run: ({ args }) => notifyTest({ dir: args.dir, addr: args.addr, url: args.url, channel: args.channel }),
    }),
  },
})
