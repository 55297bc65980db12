// Which agents campaign for the status writer's Lease. All of them would read
// the Lease every few seconds: (N − 1) reads a look, ~200 GETs a second at
// 1,000 nodes. Only the first few nodes by rendezvous hashing campaign, so the
// reads stay the same at 10 or 10,000 nodes. Every agent computes the same set
// from the same Pods, and a node joining or leaving moves at most one seat.

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

/** 32-bit FNV-1a: deterministic on every agent and Node version, and spread well enough for a ranking. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
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
