// What one agent publishes (GET /summary) and the Lease holder gathers: per
// peer zone, a histogram of the recent round trips. A few hundred bytes per
// zone, whatever the peer count; histograms add up across agents where
// percentiles would not. Read from the network, so parsed here once.

import type { Buckets } from './histogram.ts';
import { isRecord, list, string } from '../topology/read/fields.ts';

export interface ZoneSummary {
  /** The peers' zone (the agent's own zone for its own-zone RTT). */
  readonly zone: string;
  readonly buckets: Buckets;
  /** The last bounded transfer's throughput from this agent to a peer of that zone (--bandwidth-period). */
  readonly bandwidthGbps?: number;
}

export interface AgentSummary {
  readonly node: string;
  readonly zone: string;
  readonly zones: readonly ZoneSummary[];
}

/** The JSON form: buckets as [index, count] pairs. */
export function encodeSummary(summary: AgentSummary): string {
  return JSON.stringify({
    node: summary.node,
    zone: summary.zone,
    zones: summary.zones.map(({ zone, buckets, bandwidthGbps }) => ({
      zone,
      buckets: [...buckets],
      ...(bandwidthGbps !== undefined && { bandwidthGbps }),
    })),
  });
}

/** An agent's summary, or why it is not one. */
export function parseSummary(value: unknown): AgentSummary | string {
  if (!isRecord(value)) return 'not an object';
  const node = string(value.node);
  const zone = string(value.zone);
  if (!node || !zone) return 'node and zone are required strings';
  const zones: ZoneSummary[] = [];
  for (const entry of list(value.zones)) {
    if (!isRecord(entry) || !string(entry.zone)) return 'zones[] needs a zone';
    const buckets = new Map<number, number>();
    for (const pair of list(entry.buckets)) {
      if (!Array.isArray(pair) || pair.length !== 2) return 'buckets are [index, count] pairs';
      const [index, count] = pair as unknown[];
      if (!Number.isInteger(index) || !Number.isInteger(count) || (count as number) < 0)
        return 'bucket index and count are integers';
      buckets.set(index as number, (buckets.get(index as number) ?? 0) + (count as number));
    }
    const bandwidthGbps = entry.bandwidthGbps;
    if (bandwidthGbps !== undefined && !(typeof bandwidthGbps === 'number' && bandwidthGbps > 0 && bandwidthGbps < 1e6))
      return 'bandwidthGbps is a positive number';
    zones.push({ zone: entry.zone as string, buckets, ...(bandwidthGbps !== undefined && { bandwidthGbps }) });
  }
  return { node, zone, zones };
}

/** The summary with each zone's last throughput added (zones without RTT samples are not links yet). */
export function withBandwidth(summary: AgentSummary, gbps: ReadonlyMap<string, number>): AgentSummary {
  if (gbps.size === 0) return summary;
  return {
    ...summary,
    zones: summary.zones.map((entry) =>
      gbps.has(entry.zone) ? { ...entry, bandwidthGbps: gbps.get(entry.zone)! } : entry,
    ),
  };
}
