// herdr's event hub (src/api/event_hub.rs as described in protocol doc 10.2): a ring of the last
// 512 lifecycle events, each stamped with a global sequence number starting at 0.

export interface EventEnvelope {
  event: string
  data: { type: string } & Record<string, unknown>
}

export interface HubEntry {
  seq: number
  envelope: EventEnvelope
}

export const HUB_CAPACITY = 512

export class EventHub {
  private ring: HubEntry[] = []
  private nextSeq = 0

  publish(type: string, data: Record<string, unknown>): void {
    this.ring.push({ seq: this.nextSeq, envelope: { event: type, data: { type, ...data } } })
    this.nextSeq += 1
    if (this.ring.length > HUB_CAPACITY) this.ring.shift()
  }

  /** The sequence number the next published event will get ("now" for a new cursor). */
  get head(): number {
    return this.nextSeq
  }

  /**
   * First buffered event at or after `cursor` that passes `accept`. A cursor that fell out of the
   * ring silently resumes at the oldest buffered event, which is how herdr loses events for a
   * subscriber more than 512 events behind.
   */
  nextMatching(cursor: number, accept: (e: EventEnvelope) => boolean): HubEntry | undefined {
    for (const entry of this.ring) {
      if (entry.seq < cursor) continue
      if (accept(entry.envelope)) return entry
    }
    return undefined
  }

  /** Drops everything, as a restarted server starts with an empty hub. */
  reset(): void {
    this.ring = []
    this.nextSeq = 0
  }
}

/** Subscription `type` (dotted) → pushed lifecycle `event` name (snake_case). */
export function lifecycleEventName(subscriptionType: string): string {
  return subscriptionType.replace('.', '_')
}

export const PER_PANE_TYPES = new Set(['pane.agent_status_changed', 'pane.output_matched', 'pane.scroll_changed'])
