// How the bridge reads what a herdr server reports (docs/herdr-versions.md).
import { describe, expect, it } from 'vitest'
import { newerThanTested, parseVersion, streamsLiveOnly } from '../../core/herdr/server-version.ts'

describe('what a herdr server reports', () => {
  it('parses versions, a v prefix and a dev suffix included; anything else is unknown', () => {
    expect(parseVersion('0.9.1')).toEqual([0, 9, 1])
    expect(parseVersion('v0.10')).toEqual([0, 10, 0])
    expect(parseVersion('0.9.0-dev+abc')).toEqual([0, 9, 0])
    expect(parseVersion('nightly')).toBeUndefined()
    expect(parseVersion(9)).toBeUndefined()
  })

  it('live-only subscriptions from herdr 0.9.0 on, by version first, else by protocol 22 and later', () => {
    expect(streamsLiveOnly({ version: '0.8.2', protocol: 20 })).toBe(false)
    expect(streamsLiveOnly({ version: '0.9.0', protocol: 22 })).toBe(true)
    expect(streamsLiveOnly({ version: '1.0.0', protocol: 30 })).toBe(true)
    // The version decides when there is one; a protocol alone only without it.
    expect(streamsLiveOnly({ version: '0.8.9', protocol: 22 })).toBe(false)
    expect(streamsLiveOnly({ protocol: 22 })).toBe(true)
    expect(streamsLiveOnly({ protocol: 21 })).toBe(false)
    expect(streamsLiveOnly({})).toBe(false)
  })

  it('a notice only for a later minor line or a later protocol than tested', () => {
    expect(newerThanTested({ version: '0.9.5', protocol: 22 })).toBeUndefined()
    expect(newerThanTested({ version: '0.8.0', protocol: 20 })).toBeUndefined()
    expect(newerThanTested({ version: '0.10.0', protocol: 22 })).toBe(
      'herdr 0.10.0 (protocol 22) is newer than this bridge was tested with (herdr 0.9.1, protocol 22); it should work, and a feature the server lacks fails only that action',
    )
    expect(newerThanTested({ version: '0.9.7', protocol: 23 })).toMatch(/^herdr 0\.9\.7 \(protocol 23\) is newer than/)
  })
})
