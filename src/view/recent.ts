// The recent decisions the topology view shows: a bounded ring, newest first,
// of what names a decision (Pod, namespace, workload, policies, outcome,
// latency, which part decided), never a Pod's body. Each keeps the request it
// was made on, for `explain` when the page asks; the request never leaves the
// process.

import type { PodRequest } from '../policy/types.ts';

export interface RecentDecision {
  /** Increases with every decision: what the page names a decision by. */
  readonly id: number;
  /** ISO time the answer was made. */
  readonly at: string;
  readonly namespace: string;
  /** The Pod's name, or its generateName when it has none yet (a controller's Pod). */
  readonly pod: string;
  /** namespace/Kind/name. */
  readonly workload: string;
  /** The webhook (admission) or the placement controller (a deferred Pod released). */
  readonly by: 'webhook' | 'controller';
  readonly outcome: 'allowed' | 'patched' | 'denied' | 'deferred' | 'skipped';
  /** Why it was deferred or skipped. */
  readonly reason?: string;
  readonly policies: readonly string[];
  readonly latencyMs: number;
  readonly snapshot?: string;
}

export interface RecentDecisions {
  add(decision: Omit<RecentDecision, 'id'>, request?: PodRequest): void;
  /** Newest first. */
  list(): readonly RecentDecision[];
  /** The decision and the request it was made on, while it is in the ring. */
  find(id: number): { readonly decision: RecentDecision; readonly request?: PodRequest } | undefined;
  /** How many were ever added: a change counter for the view's updates. */
  readonly added: number;
}

export function recentDecisions(capacity = 200): RecentDecisions {
  const ring: { decision: RecentDecision; request?: PodRequest }[] = [];
  let next = 0;
  let added = 0;
  return {
    add(decision, request) {
      ring[next] = { decision: { id: added, ...decision }, ...(request && { request }) };
      next = (next + 1) % capacity;
      added++;
    },
    list() {
      const newest = [...ring.slice(0, next).reverse(), ...ring.slice(next).reverse()];
      return newest.map((entry) => entry.decision);
    },
    find(id) {
      if (id < added - ring.length || id >= added) return undefined;
      return ring[id % capacity];
    },
    get added() {
      return added;
    },
  };
}
