// What one etcd member's /metrics says about itself: its ID, whether it
// leads, whether it has a leader, and its round-trip time to each peer.

import { parsePrometheusText } from './prometheus.ts';

export interface EtcdMetrics {
  /** Hex member ID, from etcd_server_id (etcd ≥ 3.5). */
  readonly id?: string;
  readonly isLeader: boolean;
  readonly hasLeader?: boolean;
  /**
   * Mean RTT to each peer (by hex member ID) in ms, the histogram's sum / count,
   * to 0.1 ms: finer would make a steady cluster look changed at every scrape.
   */
  readonly peerRttMs: Readonly<Record<string, number>>;
}

const RTT = 'etcd_network_peer_round_trip_time_seconds';
const NAMES = new Set([
  'etcd_server_id',
  'etcd_server_is_leader',
  'etcd_server_has_leader',
  `${RTT}_sum`,
  `${RTT}_count`,
]);

/** Undefined when the text has no etcd_server_is_leader: not an etcd metrics endpoint. */
export function readEtcdMetrics(text: string): EtcdMetrics | undefined {
  let id: string | undefined;
  let isLeader: boolean | undefined;
  let hasLeader: boolean | undefined;
  const sums = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const sample of parsePrometheusText(text, NAMES)) {
    switch (sample.name) {
      case 'etcd_server_id':
        if (sample.value === 1 && sample.labels.server_id) id = sample.labels.server_id;
        break;
      case 'etcd_server_is_leader':
        isLeader = sample.value === 1;
        break;
      case 'etcd_server_has_leader':
        hasLeader = sample.value === 1;
        break;
      case `${RTT}_sum`:
        if (sample.labels.To) sums.set(sample.labels.To, sample.value);
        break;
      case `${RTT}_count`:
        if (sample.labels.To) counts.set(sample.labels.To, sample.value);
        break;
    }
  }
  if (isLeader === undefined) return undefined;
  const peerRttMs: Record<string, number> = {};
  for (const [peer, count] of counts) {
    const sum = sums.get(peer);
    if (sum !== undefined && count > 0) peerRttMs[peer] = Math.round((sum / count) * 10_000) / 10;
  }
  return { ...(id ? { id } : {}), isLeader, ...(hasLeader === undefined ? {} : { hasLeader }), peerRttMs };
}
