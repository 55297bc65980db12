// Distances between failure domains from measured links, with the two
// questions latency rules ask memoised per snapshot.

import type { NetworkModel } from './model.ts';
import type { NetworkFacts } from './read/network-topology.ts';

type Nearest = readonly { readonly domain: string; readonly rttMs: number }[];

export function createNetworkModel(facts: NetworkFacts): NetworkModel {
  const distances = new Map<string, Map<string, number>>();
  const link = (from: string, to: string, rttMs: number) => {
    let row = distances.get(from);
    if (!row) distances.set(from, (row = new Map()));
    row.set(to, rttMs);
  };
  // Later links win, so that a correction appended to the list takes effect.
  for (const { from, to, rttMs, symmetric } of facts.links) {
    link(from, to, rttMs);
    if (symmetric) link(to, from, rttMs);
  }
  const rttMs = (from: string, to: string) => (from === to ? 0 : distances.get(from)?.get(to));

  const nearestMemo = new Map<string, Nearest>();
  const nearest = (target: string): Nearest => {
    let ranked = nearestMemo.get(target);
    if (!ranked) {
      // RTT measured from each domain towards the target: the path a client there would take.
      const others: { domain: string; rttMs: number }[] = [];
      for (const [from, row] of distances) {
        const ms = row.get(target);
        if (from !== target && ms !== undefined) others.push({ domain: from, rttMs: ms });
      }
      others.sort((a, b) => a.rttMs - b.rttMs || (a.domain < b.domain ? -1 : 1));
      ranked = [{ domain: target, rttMs: 0 }, ...others];
      nearestMemo.set(target, ranked);
    }
    return ranked;
  };

  const withinMemo = new Map<string, ReadonlySet<string>>();
  const within = (target: string, maxRttMs: number): ReadonlySet<string> => {
    const key = `${maxRttMs}\u0000${target}`;
    let domains = withinMemo.get(key);
    if (!domains) {
      domains = new Set(
        nearest(target)
          .filter((d) => d.rttMs <= maxRttMs)
          .map((d) => d.domain),
      );
      withinMemo.set(key, domains);
    }
    return domains;
  };

  const model = { name: facts.name, domainLabel: facts.domainLabel, rttMs, within, nearest };
  return facts.observedAt === undefined ? model : { ...model, observedAt: facts.observedAt };
}
