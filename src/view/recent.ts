// The recent decisions the topology view shows: a bounded ring, newest first.
// Only what names a decision (Pod, namespace, policies, outcome, latency),
// never a Pod's body.

export interface RecentDecision {
  /** ISO time the answer was made. */
  readonly at: string;
  readonly namespace: string;
  /** The Pod's name, or its generateName when it has none yet (a controller's Pod). */
  readonly pod: string;
  readonly outcome: 'allowed' | 'patched' | 'denied' | 'deferred';
  readonly policies: readonly string[];
  readonly latencyMs: number;
  readonly snapshot?: string;
}

export interface RecentDecisions {
  add(decision: RecentDecision): void;
  /** Newest first. */
  list(): readonly RecentDecision[];
  /** How many were ever added: a change counter for the view's updates. */
  readonly added: number;
}

export function recentDecisions(capacity = 50): RecentDecisions {
  const ring: RecentDecision[] = [];
  let next = 0;
  let added = 0;
  return {
    add(decision) {
      ring[next] = decision;
      next = (next + 1) % capacity;
      added++;
    },
    list() {
      const older = ring.slice(next);
      return [...ring.slice(0, next).reverse(), ...older.reverse()];
    },
    get added() {
      return added;
    },
  };
}
