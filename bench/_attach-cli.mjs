#!/usr/bin/env node
// A stand-in for `herdr terminal session control …` in bench/attach: speaks the CLI's JSON-line
// protocol (keys in alphabetical order, as herdr prints them) but has no terminal behind it, so
// it can stream far faster than the simulator's CLI and the bridge's own cost shows. Typed input
// is echoed back at once; typing the bytes "\x02S" streams BENCH_ATTACH_MB megabytes (64 KiB
// frames) followed by a frame holding "END-OF-STREAM".
import readline from 'node:readline'

const MB = Number(process.env.BENCH_ATTACH_MB ?? 200)
const chunk = Buffer.alloc(64 * 1024)
for (let i = 0; i < chunk.length; i++) chunk[i] = 32 + (i % 95)
let seq = 0
const line = (bytes) =>
  JSON.stringify({ bytes: Buffer.from(bytes).toString('base64'), encoding: 'ansi', full: false, height: 40, seq: ++seq, type: 'terminal.frame', width: 120 }) + '\n'
// The streamed frame is encoded once, so the stand-in's own speed stays far above the bridge's
// (its seq repeats; the bridge does not read seq).
const frame = Buffer.from(line(chunk))

async function stream() {
  const frames = Math.ceil((MB * 1024 * 1024) / chunk.length)
  for (let i = 0; i < frames; i++) {
    if (!process.stdout.write(frame)) await new Promise((r) => process.stdout.once('drain', r))
  }
  process.stdout.write(line('END-OF-STREAM'))
}

process.stdout.on('error', () => process.exit(0))
readline.createInterface({ input: process.stdin }).on('line', (l) => {
  let msg
  try {
    msg = JSON.parse(l)
  } catch {
    return
  }
  if (msg.type === 'terminal.release') process.exit(0)
  if (msg.type !== 'terminal.input') return
  const bytes = Buffer.from(msg.bytes ?? '', 'base64')
  if (bytes.toString('latin1') === '\x02S') void stream()
  else process.stdout.write(line(bytes))
})
process.stdin.on('end', () => process.exit(0))
