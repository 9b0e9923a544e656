/**
 * What a herdr server's reported version and protocol (from `ping` or `session.snapshot`) say
 * about how to talk to it. Decided from what the server reports, never from equality with one
 * protocol number (herdr 0.9.0, #3509): a newer server keeps the newer behaviour, an unknown one
 * is taken as the oldest we serve. Facts and sources: docs/herdr-versions.md.
 */

// The oldest protocol the bridge is built for is HERDR_PROTOCOL in core/version.ts (older gets a warning).
/** Newest protocol the bridge was tested against (herdr 0.9.x reports 22); newer gets a notice. */
export const HERDR_PROTOCOL_TESTED = 22
/** Newest herdr version the bridge was tested against (the simulator's 0.9 mode). */
export const HERDR_VERSION_TESTED = '0.9.1'

export interface ServerReport {
  version?: unknown
  protocol?: unknown
}

/** `major.minor.patch` as numbers, or undefined for anything else (a dev build's suffix is ignored). */
export function parseVersion(v: unknown): [number, number, number] | undefined {
  const m = typeof v === 'string' ? /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(v.trim()) : null
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined
}

export function compareVersions(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2]
}

const atLeast = (r: ServerReport, version: string, protocol: number): boolean => {
  const v = parseVersion(r.version)
  if (v) return compareVersions(v, parseVersion(version)!) >= 0
  return typeof r.protocol === 'number' && r.protocol >= protocol
}

/**
 * herdr 0.9.0 (#1270): a new lifecycle subscription starts with live events and replays nothing,
 * so nothing that arrives after the ack may be dropped as history.
 */
export const streamsLiveOnly = (r: ServerReport): boolean => atLeast(r, '0.9.0', 22)

/**
 * One line for a server newer than anything tested (a later protocol, or a later minor line than
 * 0.9: patch releases of a tested line keep its protocol), else undefined.
 */
/** A reported field as text; anything but a string or a number (absent, an object) reads `?`. */
const shown = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '?')

export function newerThanTested(r: ServerReport): string | undefined {
  const v = parseVersion(r.version)
  const tested = parseVersion(HERDR_VERSION_TESTED)!
  const newerLine = v !== undefined && compareVersions([v[0], v[1], 0], [tested[0], tested[1], 0]) > 0
  const newerProtocol = typeof r.protocol === 'number' && r.protocol > HERDR_PROTOCOL_TESTED
  if (!newerLine && !newerProtocol) return undefined
  return `herdr ${shown(r.version)} (protocol ${shown(r.protocol)}) is newer than this bridge was tested with (herdr ${HERDR_VERSION_TESTED}, protocol ${HERDR_PROTOCOL_TESTED}); it should work, and a feature the server lacks fails only that action`
}
