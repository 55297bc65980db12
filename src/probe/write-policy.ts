// When the Lease holder writes NetworkTopology status: the first time, when a
// figure moved beyond its hysteresis band (a link's p50, p99 or bandwidth, a link or a
// degraded node appearing or leaving), or when observedAt is about to age;
// never twice within minPeriodMs, whatever the node count.

import type { NetworkStatus } from './aggregate.ts';
import { BANDWIDTH_BAND, MEDIAN_BAND, TAIL_BAND, moved } from './hysteresis.ts';

export interface WritePolicy {
  readonly minPeriodMs: number;
  /** Rewrite unchanged figures this often, well inside serve's --max-source-age (10 min by default). */
  readonly refreshMs: number;
}

export const DEFAULT_WRITE_POLICY: WritePolicy = { minPeriodMs: 5_000, refreshMs: 60_000 };

export interface Written {
  readonly status: NetworkStatus;
  readonly at: number;
}

export type WriteReason = 'first' | 'moved' | 'refresh';

export function writeReason(
  last: Written | undefined,
  next: NetworkStatus,
  now: number,
  policy: WritePolicy,
): WriteReason | undefined {
  if (!last) return next.links.length > 0 ? 'first' : undefined;
  if (now - last.at < policy.minPeriodMs) return undefined;
  if (changed(last.status, next)) return 'moved';
  return now - last.at >= policy.refreshMs ? 'refresh' : undefined;
}

function changed(old: NetworkStatus, next: NetworkStatus): boolean {
  if (old.links.length !== next.links.length || old.degradedNodes.length !== next.degradedNodes.length) return true;
  const before = new Map(old.links.map((link) => [`${link.from}\u0000${link.to}`, link]));
  for (const link of next.links) {
    const was = before.get(`${link.from}\u0000${link.to}`);
    if (!was || moved(was.rttMs, link.rttMs, MEDIAN_BAND) || moved(was.rttP99Ms, link.rttP99Ms, TAIL_BAND)) return true;
    if (bandwidthMoved(was.bandwidthGbps, link.bandwidthGbps)) return true;
  }
  const degraded = new Set(old.degradedNodes.map((node) => node.name));
  return next.degradedNodes.some((node) => !degraded.has(node.name));
}

function bandwidthMoved(old: number | undefined, next: number | undefined): boolean {
  if (old === undefined || next === undefined) return old !== next;
  return moved(old, next, BANDWIDTH_BAND);
}
