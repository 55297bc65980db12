// The agents' summaries → the NetworkTopology status: one link per unordered
// zone pair (both directions' histograms added), from == to for a zone's own
// RTT, and the nodes whose own-zone median is far above the rest of their
// zone's.

import type { DegradedNode, MeasuredLink } from '../api/v1alpha1/networktopology.ts';
import { median } from '../stats/order.ts';
import { merge, quantileOf, total } from './histogram.ts';
import type { AgentSummary } from './summary.ts';

/**
 * A status link as the probe writes it: always with its p99 and sample count; bandwidthGbps is the median
 * of the agents' last bounded transfers between the two zones, either way.
 */
export type ProbedLink = MeasuredLink & Required<Pick<MeasuredLink, 'rttP99Ms' | 'samples'>>;

export interface NetworkStatus {
  readonly links: readonly ProbedLink[];
  readonly degradedNodes: readonly DegradedNode[];
}

export interface DegradedRule {
  /** A node is degraded above factor × the zone's median … */
  readonly factor: number;
  /** … and at least this many ms above it, so loopback-scale noise never counts. */
  readonly marginMs: number;
}

export const DEFAULT_DEGRADED: DegradedRule = { factor: 3, marginMs: 1 };
/** The CRD's maxItems for status.degradedNodes. */
export const MAX_DEGRADED = 1000;

export function aggregate(summaries: readonly AgentSummary[], rule: DegradedRule = DEFAULT_DEGRADED): NetworkStatus {
  const pairs = new Map<string, { from: string; to: string; buckets: Map<number, number>; gbps: number[] }>();
  for (const agent of summaries) {
    for (const { zone, buckets, bandwidthGbps } of agent.zones) {
      const [from, to] = agent.zone <= zone ? [agent.zone, zone] : [zone, agent.zone];
      const key = `${from}\u0000${to}`;
      let pair = pairs.get(key);
      if (!pair) pairs.set(key, (pair = { from, to, buckets: new Map(), gbps: [] }));
      merge(pair.buckets, buckets);
      if (bandwidthGbps !== undefined) pair.gbps.push(bandwidthGbps);
    }
  }
  const links: ProbedLink[] = [];
  for (const { from, to, buckets, gbps } of pairs.values()) {
    const rttMs = quantileOf(buckets, 0.5);
    const rttP99Ms = quantileOf(buckets, 0.99);
    if (rttMs === undefined || rttP99Ms === undefined) continue;
    const bandwidthGbps = gbps.length === 0 ? undefined : median(gbps);
    links.push({
      from,
      to,
      rttMs: round(rttMs),
      rttP99Ms: round(rttP99Ms),
      samples: total(buckets),
      ...(bandwidthGbps !== undefined && { bandwidthGbps: Math.round(bandwidthGbps * 100) / 100 }),
    });
  }
  links.sort((a, b) => compare(a.from, b.from) || compare(a.to, b.to));
  return { links, degradedNodes: degraded(summaries, rule) };
}

/** Each node against the others of its zone (leave-one-out), so that the slow node does not raise its own yardstick. */
function degraded(summaries: readonly AgentSummary[], rule: DegradedRule): DegradedNode[] {
  const own = new Map<string, { node: string; buckets: ReadonlyMap<number, number> }[]>();
  for (const agent of summaries) {
    const entry = agent.zones.find((z) => z.zone === agent.zone);
    if (!entry || total(entry.buckets) === 0) continue;
    const zone = own.get(agent.zone);
    if (zone) zone.push({ node: agent.node, buckets: entry.buckets });
    else own.set(agent.zone, [{ node: agent.node, buckets: entry.buckets }]);
  }
  const out: DegradedNode[] = [];
  for (const members of own.values()) {
    if (members.length < 2) continue;
    const all = new Map<number, number>();
    for (const { buckets } of members) merge(all, buckets);
    for (const { node, buckets } of members) {
      const others = new Map(all);
      for (const [bucket, count] of buckets) others.set(bucket, others.get(bucket)! - count);
      const zoneRttMs = quantileOf(others, 0.5);
      const rttMs = quantileOf(buckets, 0.5);
      if (zoneRttMs === undefined || rttMs === undefined) continue;
      if (rttMs > Math.max(rule.factor * zoneRttMs, zoneRttMs + rule.marginMs))
        out.push({ name: node, rttMs: round(rttMs), zoneRttMs: round(zoneRttMs) });
    }
  }
  out.sort((a, b) => b.rttMs / b.zoneRttMs - a.rttMs / a.zoneRttMs || compare(a.name, b.name));
  return out.slice(0, MAX_DEGRADED);
}

/** Microseconds are the finest a TCP round trip on one host tells apart. */
function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
