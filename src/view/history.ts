// What the model saw over the last hour, for the view's trends: the measured
// RTT of each pair of domains at every new measurement (status.observedAt), the etcd
// leader's changes and the nodes that became or stopped being degraded.
// Bounded in samples, pairs and events, so a page open for hours and a
// server up for weeks hold the same. The clock comes in as `now`.

import type { TopologySnapshot } from '../topology/model.ts';

export const horizonMs = 3_600_000;
/** One sample per this at most: a status rewritten faster adds nothing a trend shows. */
export const sampleEveryMs = 10_000;
/** Domains whose pairs are kept: 16 domains are 120 pairs. */
export const maxDomains = 16;
export const maxEvents = 100;
const namesPerEvent = 10;

export interface RttSample {
  readonly at: number;
  readonly p50Ms: number;
  readonly p99Ms?: number;
}

export interface HistoryEvent {
  readonly at: string;
  readonly kind: 'etcd leader' | 'degraded' | 'recovered';
  readonly text: string;
}

export interface History {
  /** Takes in a snapshot; true when it recorded something. */
  observe(snapshot: TopologySnapshot, now: number): boolean;
  /** The pair's samples of the last hour, oldest first. */
  series(from: string, to: string, now: number): readonly RttSample[];
  /** The pairs with samples, each as [from, to] with from < to. */
  pairs(): readonly (readonly [string, string])[];
  /** Newest first. */
  events(): readonly HistoryEvent[];
}

const pairKey = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

export function history(): History {
  return new TopologyHistory();
}

class TopologyHistory implements History {
  readonly #samples = new Map<string, RttSample[]>();
  readonly #events: HistoryEvent[] = [];
  #lastSample = -Infinity;
  #lastObservedAt: number | undefined;
  #leader: string | undefined;
  /** Undefined until the first snapshot: what it holds is no change. */
  #degraded: ReadonlySet<string> | undefined;

  observe(snapshot: TopologySnapshot, now: number): boolean {
    const sampled = this.#sample(snapshot, now);
    const changed = this.#changes(snapshot, now);
    return sampled || changed;
  }

  series(from: string, to: string, now: number): readonly RttSample[] {
    return (this.#samples.get(pairKey(from, to)) ?? []).filter((s) => s.at >= now - horizonMs);
  }

  pairs(): readonly (readonly [string, string])[] {
    return [...this.#samples.keys()].sort().map((key) => key.split('\u0000') as [string, string]);
  }

  events(): readonly HistoryEvent[] {
    return this.#events;
  }

  /** The measured RTTs, at a new measurement and not within sampleEveryMs of the last sample. */
  #sample(snapshot: TopologySnapshot, now: number): boolean {
    const network = snapshot.network;
    if (network?.observedAt === undefined || network.observedAt === this.#lastObservedAt) return false;
    if (now - this.#lastSample < sampleEveryMs) return false;
    this.#lastSample = now;
    this.#lastObservedAt = network.observedAt;
    const domains = [...snapshot.nodes.labelValues(network.domainLabel).keys()].sort().slice(0, maxDomains);
    for (const [i, from] of domains.entries())
      for (const to of domains.slice(i + 1)) {
        // A declared link is a constant: only what was measured makes a trend.
        const p50Ms = network.measured(from, to) ? network.rttMs(from, to, 'p50') : undefined;
        if (p50Ms === undefined) continue;
        const p99Ms = network.rttMs(from, to, 'p99');
        const list = this.#samples.get(pairKey(from, to)) ?? [];
        list.push({ at: now, p50Ms, ...(p99Ms !== undefined && { p99Ms }) });
        while (list.length > 0 && list[0]!.at < now - horizonMs) list.shift();
        this.#samples.set(pairKey(from, to), list);
      }
    for (const [key, list] of this.#samples) if (list.at(-1)!.at < now - horizonMs) this.#samples.delete(key);
    return true;
  }

  /** The etcd leader's changes and the nodes that became or stopped being degraded, as events. */
  #changes(snapshot: TopologySnapshot, now: number): boolean {
    let recorded = false;
    const leader = snapshot.etcd.leader?.name;
    const before = this.#degraded;
    if (before !== undefined && leader !== this.#leader) {
      this.#event(now, 'etcd leader', `${this.#leader ?? 'unknown'} → ${leader ?? 'unknown'}`);
      recorded = true;
    }
    this.#leader = leader;
    const degraded = new Set(snapshot.network?.degradedNodes.keys() ?? []);
    if (before !== undefined) {
      const became = [...degraded].filter((node) => !before.has(node)).sort();
      const recovered = [...before].filter((node) => !degraded.has(node)).sort();
      if (became.length > 0) this.#event(now, 'degraded', names(became));
      if (recovered.length > 0) this.#event(now, 'recovered', names(recovered));
      recorded ||= became.length + recovered.length > 0;
    }
    this.#degraded = degraded;
    return recorded;
  }

  #event(now: number, kind: HistoryEvent['kind'], text: string): void {
    this.#events.unshift({ at: new Date(now).toISOString(), kind, text });
    this.#events.length = Math.min(this.#events.length, maxEvents);
  }
}

const names = (list: readonly string[]) =>
  list.length > namesPerEvent
    ? `${list.slice(0, namesPerEvent).join(', ')} and ${list.length - namesPerEvent} more`
    : list.join(', ');
