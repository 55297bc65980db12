// Pods topogate admitted held to one value of a node label (a zone, a rack)
// that the Pod watch has not brought back yet: the scheduler's "assumed Pods",
// at admission. The ReplicaSet controller creates a Deployment's replicas in
// bursts, and a second replica is decided before the watch shows the first;
// counted as assumed, the first already holds its zone for the second (a
// colocate rule then sends it to the next zone, a pack rule counts its
// requests in the rack). An assumption ends when a Pod of its workload
// arrives held the same way (or bound, from a relist), or when it expires: a
// Pod the API server refused after topogate admitted it never arrives.

import type { PendingUsage, PodUsage } from './read/pod-usage.ts';
import { sameRecord } from './sameRecord.ts';

/** How long an admitted Pod is counted without its watch event: far past a watch's lag, short of a rollout. */
export const ASSUMED_TTL_MS = 30_000;
/** Admissions kept at once (a burst of 4,096 held Pods within the TTL); past it the oldest is let go. */
export const MOST_ASSUMED = 4_096;

interface Assumption {
  readonly usage: PendingUsage;
  readonly expiresAt: number;
}

export class AssumedPods {
  /** Oldest first: expiry and the first match of a workload both read from the front. */
  #entries: Assumption[] = [];

  get size(): number {
    return this.#entries.length;
  }

  /** Counts one admitted Pod until `expiresAt`; the oldest assumption, given back, when that makes too many. */
  add(usage: PendingUsage, expiresAt: number): PendingUsage | undefined {
    this.#entries.push({ usage, expiresAt });
    return this.#entries.length > MOST_ASSUMED ? this.#entries.shift()!.usage : undefined;
  }

  /**
   * The assumption a Pod seen for the first time stands for, taken out: the oldest of its workload held to the
   * same values when it arrives held, the oldest of its workload when it arrives bound.
   */
  take(arriving: PodUsage): PendingUsage | undefined {
    const index = this.#entries.findIndex(
      ({ usage }) =>
        usage.workload === arriving.workload &&
        (arriving.node !== undefined || sameRecord(usage.heldTo, arriving.heldTo)),
    );
    return index < 0 ? undefined : this.#entries.splice(index, 1)[0]!.usage;
  }

  /** The assumptions expired at `now`, taken out. */
  expire(now: number): PendingUsage[] {
    let count = 0;
    while (count < this.#entries.length && this.#entries[count]!.expiresAt <= now) count++;
    return count === 0 ? [] : this.#entries.splice(0, count).map(({ usage }) => usage);
  }

  /** When the oldest assumption expires; undefined when there is none. */
  nextExpiry(): number | undefined {
    return this.#entries[0]?.expiresAt;
  }
}
