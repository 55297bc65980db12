// Cilium's node health measurements as agent summaries, for clusters that
// already probe: the per-target gauge cilium_node_connectivity_latency_seconds
// (the last round trip from source_node_name to target_node_name) of every
// agent's /metrics. Its successor, the cilium_node_health_connectivity_latency_seconds
// histogram, has no target label, so it cannot place a round trip on a zone pair.
// Each scrape contributes one sample per node pair.

import { parsePrometheusText } from '../../topology/etcd/prometheus.ts';
import { add, bucketOf } from '../histogram.ts';
import type { AgentSummary } from '../summary.ts';

export const CILIUM_LATENCY = 'cilium_node_connectivity_latency_seconds';

export interface CiliumChoice {
  /** icmp (the network's round trip) or http (through cilium-health's responder). */
  readonly protocol: 'icmp' | 'http';
  /** node (the node's own address) or endpoint (the health endpoint Pod). */
  readonly type: 'node' | 'endpoint';
}

export const DEFAULT_CILIUM_CHOICE: CiliumChoice = { protocol: 'icmp', type: 'node' };

/** One summary per source node whose zone is known; targets in no known zone (other clusters) are left out. */
export function ciliumSummaries(
  text: string,
  zoneOf: (node: string) => string | undefined,
  choice: CiliumChoice = DEFAULT_CILIUM_CHOICE,
): AgentSummary[] {
  const bySource = new Map<string, Map<string, Map<number, number>>>();
  for (const { labels, value } of parsePrometheusText(text, new Set([CILIUM_LATENCY]))) {
    const source = labels.source_node_name;
    const target = labels.target_node_name;
    if (!source || !target || source === target) continue;
    if (labels.protocol !== choice.protocol || labels.type !== choice.type) continue;
    if ((labels.address_type ?? 'primary') !== 'primary' || !(value >= 0) || !Number.isFinite(value)) continue;
    const zone = zoneOf(target);
    if (!zone || !zoneOf(source)) continue;
    let zones = bySource.get(source);
    if (!zones) bySource.set(source, (zones = new Map()));
    let buckets = zones.get(zone);
    if (!buckets) zones.set(zone, (buckets = new Map()));
    add(buckets, bucketOf(value * 1000));
  }
  return [...bySource].map(([node, zones]) => ({
    node,
    zone: zoneOf(node)!,
    zones: [...zones].map(([zone, buckets]) => ({ zone, buckets })),
  }));
}
