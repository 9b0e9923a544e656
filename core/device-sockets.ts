import type { Peer } from 'crossws'

/** An upgrade between authentication and `open`; `revoked` is set if its device is revoked meanwhile. */
export interface UpgradeTicket {
  revoked: boolean
  done(): void
}

/**
 * The WebSockets authenticated as each device, so a revocation closes them all at once —
 * including upgrades still in flight: an upgrade awaits its route's `accept` (a pane lookup)
 * between authentication and `open`, and a revocation in that gap must not be missed.
 */
export function createDeviceSockets(isPaired: (deviceId: string) => boolean) {
  const open = new Map<string, Set<Peer>>()
  const upgrading = new Map<string, Set<UpgradeTicket>>()
  return {
    /** Called right after an upgrade authenticates as a device. */
    beginUpgrade(deviceId: string): UpgradeTicket {
      let set = upgrading.get(deviceId)
      if (!set) upgrading.set(deviceId, (set = new Set()))
      const ticket: UpgradeTicket = {
        revoked: false,
        done() {
          set!.delete(ticket)
          if (!set!.size && upgrading.get(deviceId) === set) upgrading.delete(deviceId)
        },
      }
      set.add(ticket)
      return ticket
    },
    /**
     * Registers an opened socket. False when the device is no longer paired (revoked after the
     * upgrade's own check): the caller closes the socket before the route sees it.
     */
    admit(deviceId: string, peer: Peer): boolean {
      if (!isPaired(deviceId)) return false
      let set = open.get(deviceId)
      if (!set) open.set(deviceId, (set = new Set()))
      set.add(peer)
      return true
    },
    forget(deviceId: string, peer: Peer): void {
      const set = open.get(deviceId)
      set?.delete(peer)
      if (set && !set.size) open.delete(deviceId)
    },
    /** Closes every socket of the device and refuses its upgrades still in flight. */
    closeDevice(deviceId: string, code = 1008, reason = 'device revoked'): void {
      for (const t of upgrading.get(deviceId) ?? []) t.revoked = true
      const peers = open.get(deviceId)
      open.delete(deviceId)
      for (const peer of peers ?? []) {
        try {
          peer.close(code, reason)
        } catch {
          // already closing
        }
      }
    },
  }
}

export type DeviceSockets = ReturnType<typeof createDeviceSockets>
