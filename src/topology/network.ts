// Distances between failure domains: measured links (status) over declared
// ones (spec), with the two questions latency rules ask memoised per snapshot.

import type { DegradedNode, NetworkModel, RttPercentile } from './model.ts';
import type { DeclaredLink, MeasuredLink } from '../api/v1alpha1/networktopology.ts';
import type { NetworkFacts } from './read/network-topology.ts';

type Nearest = readonly { readonly domain: string; readonly rttMs: number }[];

export function createNetworkModel(facts: NetworkFacts): NetworkModel {
  const { declared, measured, domains } = linkTables(facts);
  const rttMs = (from: string, to: string, percentile: RttPercentile = 'p50'): number | undefined => {
    if (from === to) return 0;
    const link = measured.get(pairKey(from, to));
    if (link) return percentile === 'p99' ? (link.rttP99Ms ?? link.rttMs) : link.rttMs;
    return declared.get(from)?.get(to)?.rttMs;
  };

  const nearestMemo = new Map<string, Nearest>();
  const nearest = (target: string, percentile: RttPercentile = 'p50'): Nearest => {
    const key = `${percentile}\u0000${target}`;
    let ranked = nearestMemo.get(key);
    if (!ranked)
      nearestMemo.set(key, (ranked = rankNearest(domains, target, (from) => rttMs(from, target, percentile))));
    return ranked;
  };

  const withinMemo = new Map<string, ReadonlySet<string>>();
  const within = (target: string, maxRttMs: number, percentile: RttPercentile = 'p50'): ReadonlySet<string> => {
    const key = `${maxRttMs}\u0000${percentile}\u0000${target}`;
    let found = withinMemo.get(key);
    if (!found) {
      found = new Set(
        nearest(target, percentile)
          .filter((d) => d.rttMs <= maxRttMs)
          .map((d) => d.domain),
      );
      withinMemo.set(key, found);
    }
    return found;
  };

  const zoneRttMs = (domain: string, percentile: RttPercentile = 'p50'): number | undefined => {
    const link = measured.get(pairKey(domain, domain));
    return link && (percentile === 'p99' ? (link.rttP99Ms ?? link.rttMs) : link.rttMs);
  };
  const bandwidthGbps = (from: string, to: string): number | undefined =>
    measured.get(pairKey(from, to))?.bandwidthGbps ?? declared.get(from)?.get(to)?.bandwidthGbps;
  const isMeasured = (from: string, to: string): boolean => measured.has(pairKey(from, to));
  const degradedNodes: ReadonlyMap<string, DegradedNode> = new Map(facts.degradedNodes.map((n) => [n.name, n]));

  const model = {
    name: facts.name,
    domainLabel: facts.domainLabel,
    rttMs,
    within,
    nearest,
    zoneRttMs,
    bandwidthGbps,
    measured: isMeasured,
    degradedNodes,
    mislabeled: new Map((facts.mislabeled ?? []).map((finding) => [finding.node, finding])),
  };
  return facts.observedAt === undefined ? model : { ...model, observedAt: facts.observedAt };
}

/** The declared links by from and to, the measured ones by unordered pair, and every domain either names. */
function linkTables(facts: NetworkFacts) {
  const declared = new Map<string, Map<string, DeclaredLink>>();
  const declare = (from: string, to: string, link: DeclaredLink) => {
    let row = declared.get(from);
    if (!row) declared.set(from, (row = new Map()));
    row.set(to, link);
  };
  const domains = new Set<string>();
  // Later links win, so that a correction appended to the list takes effect.
  for (const link of facts.links) {
    declare(link.from, link.to, link);
    if (link.symmetric) declare(link.to, link.from, link);
    domains.add(link.from).add(link.to);
  }
  // A round trip is the same both ways: one entry per unordered pair.
  const measured = new Map<string, MeasuredLink>();
  for (const link of facts.measured) {
    measured.set(pairKey(link.from, link.to), link);
    domains.add(link.from).add(link.to);
  }
  return { declared, measured, domains };
}

/** The target first, then every domain with an RTT towards it, nearest first (ties by name). */
function rankNearest(
  domains: ReadonlySet<string>,
  target: string,
  rttTowards: (from: string) => number | undefined,
): Nearest {
  // RTT measured from each domain towards the target: the path a client there would take.
  const others: { domain: string; rttMs: number }[] = [];
  for (const domain of domains) {
    const ms = domain === target ? undefined : rttTowards(domain);
    if (ms !== undefined) others.push({ domain, rttMs: ms });
  }
  others.sort((a, b) => a.rttMs - b.rttMs || (a.domain < b.domain ? -1 : 1));
  return [{ domain: target, rttMs: 0 }, ...others];
}

function pairKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}
