// What one agent publishes (GET /summary) and the Lease holder gathers: per
// peer zone, a histogram of the recent round trips, and the recent round trip
// to each peer node it probed lately. A few hundred bytes per zone plus a few
// KB of peers, whatever the node count; histograms add up across agents where
// percentiles would not. Read from the network, so parsed here once, bounded
// to what an honest agent can hold, and accepted only from the node it speaks
// for.

import { type Buckets, MAX_BUCKET, MIN_BUCKET } from './histogram.ts';
import { MAX_REPORTED_PEERS, type PeerRtt } from './peer-rtts.ts';
import { DEFAULT_WINDOW } from './window.ts';
import { isRecord } from '../kube/json.ts';
import { list, string } from '../topology/read/fields.ts';

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
  /** The recent round trip to each peer node probed lately (node pairs, beside the zone pairs). */
  readonly peers?: readonly PeerRtt[];
}

/** Zones in one summary at most: far more than any cluster has. */
const MAX_ZONES = 1000;
/** A Node name (a DNS subdomain) and a label value. */
const MAX_NODE_CHARS = 253;
const MAX_ZONE_CHARS = 63;
/** The largest round trip a histogram holds, in ms. */
const MAX_RTT_MS = 60_000;

/** The JSON form: buckets as [index, count] pairs, peers as [node, rttMs] pairs. */
export function encodeSummary(summary: AgentSummary): string {
  return JSON.stringify({
    node: summary.node,
    zone: summary.zone,
    zones: summary.zones.map(({ zone, buckets, bandwidthGbps }) => ({
      zone,
      buckets: [...buckets],
      ...(bandwidthGbps !== undefined && { bandwidthGbps }),
    })),
    ...(summary.peers && { peers: summary.peers.map(({ node, rttMs }) => [node, rttMs]) }),
  });
}

/**
 * An agent's summary, or why it is not one. Bounded to what an agent's windows
 * can hold: at most one window's samples per zone, bucket indexes that
 * bucketOf can make, each zone once, at most MAX_REPORTED_PEERS peers.
 */
export function parseSummary(value: unknown): AgentSummary | string {
  if (!isRecord(value)) return 'not an object';
  const node = name(value.node, MAX_NODE_CHARS);
  const zone = name(value.zone, MAX_ZONE_CHARS);
  if (!node || !zone) return `node and zone are strings of 1-${MAX_NODE_CHARS} and 1-${MAX_ZONE_CHARS} characters`;
  const entries = list(value.zones);
  if (entries.length > MAX_ZONES) return `more than ${MAX_ZONES} zones`;
  const zones: ZoneSummary[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (!isRecord(entry) || !name(entry.zone, MAX_ZONE_CHARS)) return 'zones[] needs a zone';
    const peerZone = entry.zone as string;
    if (seen.has(peerZone)) return `zone ${peerZone} appears twice`;
    seen.add(peerZone);
    const buckets = parseBuckets(entry.buckets);
    if (typeof buckets === 'string') return `zone ${peerZone}: ${buckets}`;
    const bandwidthGbps = entry.bandwidthGbps;
    if (bandwidthGbps !== undefined && !(typeof bandwidthGbps === 'number' && bandwidthGbps > 0 && bandwidthGbps < 1e6))
      return 'bandwidthGbps is a positive number';
    zones.push({ zone: peerZone, buckets, ...(bandwidthGbps !== undefined && { bandwidthGbps }) });
  }
  const peers = parsePeers(value.peers);
  if (typeof peers === 'string') return peers;
  return { node, zone, zones, ...(peers && { peers }) };
}

function parseBuckets(value: unknown): Buckets | string {
  const pairs = list(value);
  if (pairs.length > DEFAULT_WINDOW.maxSamples) return `more buckets than a window holds samples`;
  const buckets = new Map<number, number>();
  let samples = 0;
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) return 'buckets are [index, count] pairs';
    const [index, count] = pair as unknown[];
    if (!Number.isInteger(index) || !Number.isInteger(count) || (count as number) < 0)
      return 'bucket index and count are integers';
    if ((index as number) < MIN_BUCKET || (index as number) > MAX_BUCKET)
      return `bucket index ${index as number} is outside ${MIN_BUCKET}..${MAX_BUCKET} (1 µs .. 60 s)`;
    samples += count as number;
    if (samples > DEFAULT_WINDOW.maxSamples) return `more than the ${DEFAULT_WINDOW.maxSamples} samples a window holds`;
    buckets.set(index as number, (buckets.get(index as number) ?? 0) + (count as number));
  }
  return buckets;
}

function parsePeers(value: unknown): readonly PeerRtt[] | undefined | string {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return 'peers is a list';
  if (value.length > MAX_REPORTED_PEERS) return `more than ${MAX_REPORTED_PEERS} peers`;
  const peers: PeerRtt[] = [];
  const seen = new Set<string>();
  for (const pair of value as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2) return 'peers are [node, rttMs] pairs';
    const node = name(pair[0], MAX_NODE_CHARS);
    const rttMs = pair[1] as unknown;
    if (!node || typeof rttMs !== 'number' || !(rttMs > 0 && rttMs <= MAX_RTT_MS))
      return `a peer is a node name and a round trip in (0, ${MAX_RTT_MS}] ms`;
    if (seen.has(node)) return `peer ${node} appears twice`;
    seen.add(node);
    peers.push({ node, rttMs });
  }
  return peers;
}

function name(value: unknown, maxChars: number): string | undefined {
  const text = string(value);
  return text && text.length <= maxChars ? text : undefined;
}

/** Who the writer fetched a summary from, as the API server says: the Pod's node, and that Node's zone label. */
export interface SummarySource {
  readonly node: string;
  readonly zone: string;
}

/**
 * The summary, if it speaks for the node it was fetched from (the probe Pod's
 * IP on that node) and that node's zone; entries for zones and peer nodes the
 * writer does not know are left out (an agent whose view is a moment ahead of
 * the writer's, or one making them up).
 */
export function acceptSummary(
  summary: AgentSummary,
  from: SummarySource,
  known: { readonly zones: ReadonlySet<string>; readonly nodes: ReadonlySet<string> },
): AgentSummary | string {
  if (summary.node !== from.node) return `speaks for node ${summary.node}, but was fetched from node ${from.node}`;
  if (summary.zone !== from.zone) return `says its zone is ${summary.zone}, but node ${from.node} is in ${from.zone}`;
  const zones = summary.zones.filter((entry) => known.zones.has(entry.zone));
  const peers = summary.peers?.filter((peer) => peer.node !== from.node && known.nodes.has(peer.node));
  return { ...summary, zones, ...(peers && { peers }) };
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
