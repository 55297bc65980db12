// The agent's metrics: by peer ZONE only, never a label per peer node, so the
// series count stays the zone count whatever the cluster's size.

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface ProbeMetrics {
  readonly rtt: Histogram<'zone'>;
  readonly lost: Counter<'zone'>;
  readonly peers: Gauge<'zone'>;
  readonly downPeers: Gauge<'zone'>;
  readonly interval: Gauge;
  readonly leader: Gauge;
  readonly writes: Counter<'reason'>;
  readonly gatherFailures: Counter;
  readonly bandwidth: Gauge<'zone'>;
  readonly bandwidthFailures: Counter<'zone'>;
}

export function createProbeMetrics(registry: Registry): ProbeMetrics {
  const registers = [registry];
  return { ...probeMetrics(registers), ...writerMetrics(registers), ...bandwidthMetrics(registers) };
}

/** The probes' round trips, losses and peers, by the peer zone, and the round interval. */
function probeMetrics(registers: Registry[]) {
  return {
    rtt: new Histogram({
      name: 'topogate_probe_rtt_seconds',
      help: 'TCP round trips on established connections to peers, by the peer zone.',
      labelNames: ['zone'],
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    }),
    lost: new Counter({
      name: 'topogate_probe_lost_total',
      help: 'Probes without an answer in time (or whose connection failed), by the peer zone.',
      labelNames: ['zone'],
      registers,
    }),
    peers: new Gauge({
      name: 'topogate_probe_peers',
      help: 'Peers known from the probe DaemonSet Pods, by zone.',
      labelNames: ['zone'],
      registers,
    }),
    downPeers: new Gauge({
      name: 'topogate_probe_peers_down',
      help: 'Peers whose last probes all failed (left out of the measurements), by zone.',
      labelNames: ['zone'],
      registers,
    }),
    interval: new Gauge({
      name: 'topogate_probe_interval_seconds',
      help: 'The current (adaptive) probe round interval.',
      registers,
    }),
  };
}

/** The Lease holder's NetworkTopology status writes. */
function writerMetrics(registers: Registry[]) {
  return {
    leader: new Gauge({
      name: 'topogate_probe_leader',
      help: '1 while this agent holds the Lease and writes NetworkTopology status.',
      registers,
    }),
    writes: new Counter({
      name: 'topogate_probe_status_writes_total',
      help: 'NetworkTopology status writes, by why: first, moved (beyond hysteresis), refresh.',
      labelNames: ['reason'],
      registers,
    }),
    gatherFailures: new Counter({
      name: 'topogate_probe_gather_failures_total',
      help: "Peers' summaries the Lease holder could not read.",
      registers,
    }),
  };
}

/** The bounded throughput transfers, by the peer zone. */
function bandwidthMetrics(registers: Registry[]) {
  return {
    bandwidth: new Gauge({
      name: 'topogate_probe_bandwidth_gbps',
      help: "This agent's last bounded transfer's throughput to a peer, by the peer zone (--bandwidth-period).",
      labelNames: ['zone'],
      registers,
    }),
    bandwidthFailures: new Counter({
      name: 'topogate_probe_bandwidth_failures_total',
      help: 'Bounded throughput transfers that failed or timed out, by the peer zone.',
      labelNames: ['zone'],
      registers,
    }),
  };
}
