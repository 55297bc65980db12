// What the writer adds to NetworkTopology status from its node pairs: the derived
// levels (`tiers`: per level its threshold, how sure it is, and its groups' nodes) and
// the nodes whose zone label disagrees with where they measure (`mislabeled`). Pure,
// over src/discover; bounded so that the status stays far below etcd's 1.5 MB object
// limit at any fleet size.

import { discover } from '../discover/discover.ts';
import type { Mislabel, RttPair } from '../discover/types.ts';

/** Below this many nodes there is no hierarchy to find (three: two of them close, one apart). */
export const MIN_NODES = 3;
/**
 * Derive only once each node is in this many measured pairs on average (or in a pair with every other node, in a
 * smaller cluster): fewer, and the groups are guesses.
 */
export const MIN_PAIRS_PER_NODE = 3;
/** Node names listed per level at most (~40 bytes each: 7 levels × 1,000 ≈ 280 KB). */
export const MAX_LISTED_NODES = 1000;
export const MAX_MISLABELED = 100;

export interface TierGroup {
  readonly name: string;
  readonly nodes: readonly string[];
}

export interface StatusTier {
  /** 0 the coarsest. */
  readonly level: number;
  readonly thresholdMs: number;
  readonly confidence: number;
  /** Groups at this level, largest first; their nodes listed up to MAX_LISTED_NODES in all. */
  readonly groups: readonly TierGroup[];
  /** Nodes of this level left out of `groups` past MAX_LISTED_NODES. */
  readonly nodesOmitted: number;
}

export interface DerivedStatus {
  readonly tiers: readonly StatusTier[];
  readonly mislabeled: readonly Mislabel[];
}

/** The derived levels and mislabeled nodes; undefined while the pairs are too few to say. */
export function derivedStatus(
  pairs: readonly RttPair[],
  zoneOf: ReadonlyMap<string, string>,
): DerivedStatus | undefined {
  const nodes = new Set<string>();
  for (const pair of pairs) nodes.add(pair.a).add(pair.b);
  if (nodes.size < MIN_NODES || !enoughPairs(pairs.length, nodes.size)) return undefined;
  const found = discover(
    pairs,
    [...nodes].map((name) => ({ name, zone: zoneOf.get(name) })),
  );
  return {
    tiers: found.tiers.map((tier) => ({
      level: tier.level,
      thresholdMs: tier.thresholdMs,
      confidence: tier.confidence,
      ...listed(found.nodes, tier.level),
    })),
    mislabeled: found.mislabeled.slice(0, MAX_MISLABELED),
  };
}

/** Each pair has two ends: `pairs` pairs give each of `nodes` nodes 2 × pairs / nodes of them on average. */
function enoughPairs(pairs: number, nodes: number): boolean {
  return 2 * pairs >= Math.min(MIN_PAIRS_PER_NODE, nodes - 1) * nodes;
}

function listed(
  groupsOf: Readonly<Record<string, readonly string[]>>,
  level: number,
): { groups: TierGroup[]; nodesOmitted: number } {
  const members = new Map<string, string[]>();
  for (const [node, groups] of Object.entries(groupsOf)) {
    const group = groups[level]!;
    const nodes = members.get(group);
    if (nodes) nodes.push(node);
    else members.set(group, [node]);
  }
  const bySize = [...members].sort(([a, x], [b, y]) => y.length - x.length || (a < b ? -1 : 1));
  let room = MAX_LISTED_NODES;
  let nodesOmitted = 0;
  const groups: TierGroup[] = [];
  for (const [name, nodes] of bySize) {
    const shown = nodes.sort().slice(0, room);
    room -= shown.length;
    nodesOmitted += nodes.length - shown.length;
    groups.push({ name, nodes: shown });
  }
  return { groups, nodesOmitted };
}
