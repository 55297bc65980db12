// An agent's recent round trips to each peer node, beside the zone windows:
// the last few samples per peer, so that the writer can keep node pairs (the
// rotation reaches a given peer only every so many rounds, so a zone window
// of 60 s rarely holds more than one sample of it). Bounded by the peer count;
// a peer that leaves is forgotten.

import { median } from '../stats/order.ts';

export interface PeerRtt {
  readonly node: string;
  readonly rttMs: number;
}

/** Peers in one summary at most: a minute of rounds at the default interval, whatever the node count. */
export const MAX_REPORTED_PEERS = 256;
/** Samples kept per peer; a peer's figure is their median. */
export const PEER_SAMPLES = 5;

export class PeerRtts {
  /** By node, in the order of their last sample (a Map keeps insertion order). */
  readonly #peers = new Map<string, { readonly samples: number[]; at: number }>();

  add(node: string, ms: number, at: number): void {
    const peer = this.#peers.get(node);
    this.#peers.delete(node);
    const samples = peer?.samples ?? [];
    samples.push(ms);
    if (samples.length > PEER_SAMPLES) samples.shift();
    this.#peers.set(node, { samples, at });
  }

  /** Forgets the peers not in `nodes` (gone from the cluster, or from the probe DaemonSet). */
  retain(nodes: ReadonlySet<string>): void {
    for (const node of this.#peers.keys()) if (!nodes.has(node)) this.#peers.delete(node);
  }

  /** The peers sampled since `now - withinMs`, latest first, at most `max`: each the median of its last samples. */
  recent(now: number, withinMs: number, max = MAX_REPORTED_PEERS): PeerRtt[] {
    const out: PeerRtt[] = [];
    const entries = [...this.#peers];
    for (let i = entries.length - 1; i >= 0 && out.length < max; i--) {
      const [node, { samples, at }] = entries[i]!;
      if (at < now - withinMs) continue;
      // Microseconds, and never 0: the finest a TCP round trip tells apart.
      out.push({ node, rttMs: Math.max(0.001, Math.round(median(samples) * 1000) / 1000) });
    }
    return out;
  }

  get size(): number {
    return this.#peers.size;
  }
}
