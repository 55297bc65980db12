// Which agents campaign for the status writer's Lease. All of them would read
// the Lease every few seconds: (N − 1) reads a look, ~200 GETs a second at
// 1,000 nodes. Only the first few nodes by rendezvous hashing campaign, so the
// reads stay the same at 10 or 10,000 nodes. Every agent computes the same set
// from the same Pods, and a node joining or leaving moves at most one seat.

import { fnv1a } from '../kube/fnv1a.ts';
import { list, record, string } from '../topology/read/fields.ts';
import { readProbePod } from './peers.ts';

/** Enough that two may fail at once and one still takes over at the next look. */
export const CANDIDATE_COUNT = 3;

/** The nodes that campaign: the `count` highest by the hash of (lease, node). */
export function candidateNodes(lease: string, nodes: Iterable<string>, count = CANDIDATE_COUNT): ReadonlySet<string> {
  const ranked = [...new Set(nodes)].map((node) => ({ node, weight: fnv1a(`${lease}\u0000${node}`) }));
  ranked.sort((a, b) => b.weight - a.weight || (a.node < b.node ? -1 : 1));
  return new Set(ranked.slice(0, count).map(({ node }) => node));
}

/**
 * The nodes that may campaign: this agent's own, and those of the probe Pods that
 * are Running and not marked unready, on Nodes not marked unready. A dead node's
 * Pods stay Running until the node lifecycle controller marks them unready (about
 * 40 s), so a dead candidate's seat passes on then.
 */
export function campaignPool(self: string, pods: readonly unknown[], nodes: readonly unknown[]): string[] {
  const unreadyNodes = new Set<string>();
  for (const node of nodes) {
    const name = string(record(record(node).metadata).name);
    if (name !== undefined && unready(node)) unreadyNodes.add(name);
  }
  const pool = pods.flatMap((pod) => {
    const probePod = readProbePod(pod);
    return probePod && !unready(pod) && !unreadyNodes.has(probePod.node) ? [probePod.node] : [];
  });
  return [self, ...pool];
}

/** A Ready condition that is not True (False or Unknown); no condition yet counts as ready. */
function unready(object: unknown): boolean {
  return list(record(record(object).status).conditions).some((item) => {
    const condition = record(item);
    return condition.type === 'Ready' && condition.status !== 'True';
  });
}

/** How many agents of a zone measure throughput to each other zone in a period. */
export const BANDWIDTH_SENDERS = 2;

/**
 * This period's throughput plan for `self`: for each other zone, the peer to send
 * to, when `self` is among its zone's senders; empty otherwise. The senders and
 * targets rotate with `period`, so over time every node is measured, and the
 * transfers per period stay BANDWIDTH_SENDERS × zones × (zones − 1) at any node count.
 */
export function bandwidthPlan<P extends { readonly node: string; readonly zone: string }>(
  self: { readonly node: string; readonly zone: string },
  peers: readonly P[],
  period: number,
): P[] {
  const own = [self.node, ...peers.filter((peer) => peer.zone === self.zone).map((peer) => peer.node)];
  if (!candidateNodes(`bandwidth/${period}/${self.zone}`, own, BANDWIDTH_SENDERS).has(self.node)) return [];
  const byZone = new Map<string, P[]>();
  for (const peer of peers) {
    if (peer.zone === self.zone) continue;
    const members = byZone.get(peer.zone);
    if (members) members.push(peer);
    else byZone.set(peer.zone, [peer]);
  }
  return [...byZone].flatMap(([zone, members]) => {
    const [target] = candidateNodes(
      `bandwidth/${period}/${self.node}/${zone}`,
      members.map((member) => member.node),
      1,
    );
    return members.filter((member) => member.node === target).slice(0, 1);
  });
}
