// Which peers one round probes: every zone at least once (own zone included,
// for its own RTT and degraded nodes), then more peers round-robin over the
// zones that have them, up to the budget. Within a zone a cursor rotates, so
// every peer is probed within ceil(zone size / its share) rounds.

import type { Peer } from './peers.ts';

export interface RoundPlan {
  readonly targets: readonly Peer[];
  /** Next start position per zone. */
  readonly cursors: ReadonlyMap<string, number>;
}

/** Probes per round: `budget`, or the zone count when there are more zones than that. */
export function planRound(peers: readonly Peer[], cursors: ReadonlyMap<string, number>, budget: number): RoundPlan {
  const byZone = new Map<string, Peer[]>();
  for (const peer of peers) {
    const zone = byZone.get(peer.zone);
    if (zone) zone.push(peer);
    else byZone.set(peer.zone, [peer]);
  }
  const zones = [...byZone.keys()].sort();
  const share = new Map(zones.map((zone) => [zone, 1]));
  let left = budget - zones.length;
  while (left > 0) {
    let grew = false;
    for (const zone of zones) {
      if (left === 0) break;
      const taken = share.get(zone)!;
      if (taken < byZone.get(zone)!.length) {
        share.set(zone, taken + 1);
        left -= 1;
        grew = true;
      }
    }
    if (!grew) break;
  }

  const targets: Peer[] = [];
  const next = new Map<string, number>();
  for (const zone of zones) {
    const members = byZone.get(zone)!;
    const start = (cursors.get(zone) ?? 0) % members.length;
    const count = share.get(zone)!;
    for (let i = 0; i < count; i++) targets.push(members[(start + i) % members.length]!);
    next.set(zone, (start + count) % members.length);
  }
  return { targets, cursors: next };
}
