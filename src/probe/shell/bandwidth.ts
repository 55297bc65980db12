// The bounded throughput probe (--bandwidth-period): once a period, the few
// agents of each zone that bandwidthPlan names send --bandwidth-bytes to one
// peer in each other zone, one transfer at a time, and keep the last
// throughput per zone for their summary. A failed transfer measures nothing
// (it is not 0 Gbps); a figure older than three periods is dropped.

import type { Logger } from 'pino';
import { bandwidthPlan } from '../candidates.ts';
import type { Peer } from '../peers.ts';
import { transfer } from './bulk.ts';
import type { ProbeMetrics } from './metrics.ts';

const FIRST_ROUND_MS = 5_000;

export interface BandwidthOptions {
  readonly node: string;
  readonly periodMs: number;
  readonly bytes: number;
  readonly timeoutMs: number;
  readonly localAddress: string | undefined;
  readonly view: () => { readonly peers: readonly Peer[]; readonly zone: string | undefined };
  readonly metrics: ProbeMetrics;
  readonly log: Logger;
}

export interface BandwidthProbe {
  /** The last throughput to each zone, in Gbps, still fresh. */
  latest(): ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

export function startBandwidthProbe(options: BandwidthOptions): BandwidthProbe {
  const { node, periodMs, metrics, log } = options;
  const measured = new Map<string, { gbps: number; at: number }>();
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  const round = async (period: number) => {
    const { peers, zone } = options.view();
    if (zone === undefined) return;
    for (const peer of bandwidthPlan({ node, zone }, peers, period)) {
      if (stopped) return;
      try {
        const gbps = await transfer(peer, options.bytes, options.timeoutMs, options.localAddress);
        measured.set(peer.zone, { gbps, at: Date.now() });
        metrics.bandwidth.set({ zone: peer.zone }, gbps);
      } catch (error) {
        metrics.bandwidthFailures.inc({ zone: peer.zone });
        log.debug({ peer: peer.name }, `throughput transfer failed: ${(error as Error).message}`);
      }
    }
  };
  // Periods are counted from the epoch, so every agent agrees on which one it is without talking.
  const tick = () => {
    running = running.then(() => round(Math.floor(Date.now() / periodMs)));
  };
  // The first round soon after start (the Pods and zones known by then), then one a period.
  const first = setTimeout(tick, Math.min(periodMs, FIRST_ROUND_MS));
  const timer = setInterval(tick, periodMs);

  return {
    latest() {
      const fresh = new Map<string, number>();
      for (const [zone, { gbps, at }] of measured)
        if (Date.now() - at <= 3 * periodMs) fresh.set(zone, gbps);
        else measured.delete(zone);
      return fresh;
    },
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
