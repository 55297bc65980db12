// Levels from the tree: a level is a cut through the merges at a gap in their heights, where the groups
// below the cut are clearly apart. Bottom-up, each candidate gap is tried against the last level kept (at
// first, single nodes): the pairs of last-level groups joined by the cut must sit below the pairs it leaves
// apart by SEPARATION (robust quantiles), the groups it leaves apart must see each other at one distance
// (HOMOGENEOUS), and above single nodes the cut must join at least two pairs of them: zones that merely
// differ in distance from each other are not a coarser level.

import type { Merge } from './linkage.ts';
import { median, quantileSorted } from '../stats/order.ts';

/** Consecutive merge heights this far apart make a candidate cut. */
const GAP = 1.25;
/** What the closest pair left apart must exceed the farthest pair joined by: a level is a jump of half again. */
const SEPARATION = 1.5;
/**
 * Merges a level must make over the groups of the level below: over single nodes one pair is a group
 * (two nodes of a zone whose other zones hold one node each); above them, two groups joined alone are
 * most often two that merely lie closer than the rest.
 */
const MIN_MERGES = 2;
/** The most the distances between two groups may vary (farthest over closest pair of finer groups). */
const HOMOGENEOUS = 1.25;
/** Below this many values, quantiles are the extremes. */
const FEW = 50;
const TAIL = 0.02;

export interface Cut {
  /** Per slot, its group: the slot of the group's first member (groups nested across cuts). */
  readonly group: Int32Array;
  readonly groups: number;
  readonly thresholdMs: number;
  readonly separation: number;
}

/** The levels, finest first. */
export function cuts(merges: readonly Merge[], rtt: Float32Array, size: number): Cut[] {
  const found: Cut[] = [];
  const parent = Int32Array.from({ length: size }, (_, slot) => slot);
  const find = (slot: number): number => {
    let root = slot;
    while (parent[root] !== root) root = parent[root]!;
    while (parent[slot] !== root) [slot, parent[slot]] = [parent[slot]!, root];
    return root;
  };
  let below: Int32Array = Int32Array.from(parent);
  let belowGroups = size;
  let applied = 0;
  let kept = 0;
  for (let cut = 1; cut < merges.length; cut++) {
    const low = merges[cut - 1]!.heightMs;
    const high = merges[cut]!.heightMs;
    if (!(Number.isFinite(high) && high >= GAP * low)) continue;
    for (; applied < cut; applied++) {
      const { left, right } = merges[applied]!;
      const [a, b] = [find(left), find(right)];
      parent[Math.max(a, b)] = Math.min(a, b);
    }
    if (cut - kept < (kept === 0 ? 1 : MIN_MERGES)) continue;
    const group = Int32Array.from({ length: size }, (_, slot) => find(slot));
    const { separation, spread } = separationOf(below, belowGroups, group, rtt, size);
    if (!(separation >= SEPARATION && spread <= HOMOGENEOUS)) continue;
    const groups = size - cut;
    found.push({ group, groups, thresholdMs: Math.sqrt(low * high), separation });
    below = group;
    belowGroups = groups;
    kept = cut;
  }
  return found;
}

/** Over pairs of `below` groups: the low tail of the mean round trips `group` leaves apart over the high tail it joins. */
function separationOf(below: Int32Array, belowGroups: number, group: Int32Array, rtt: Float32Array, size: number) {
  const means =
    belowGroups === size
      ? { values: rtt, of: Int32Array.from({ length: size }, (_, slot) => slot) }
      : groupMeans(below, belowGroups, rtt, size);
  const m = belowGroups;
  const joined = new Float32Array((m * (m - 1)) / 2);
  const apart = new Float32Array((m * (m - 1)) / 2);
  let inside = 0;
  let outside = 0;
  for (let i = 0; i < m; i++)
    for (let j = i + 1; j < m; j++) {
      const mean = means.values[i * m + j]!;
      if (mean !== mean) continue;
      if (group[means.of[i]!] === group[means.of[j]!]) joined[inside++] = mean;
      else apart[outside++] = mean;
    }
  if (inside === 0 || outside === 0) return { separation: Number.NaN, spread: Number.NaN };
  const farthestJoined = quantileSorted(joined.subarray(0, inside).sort(), inside < FEW ? 1 : 1 - TAIL);
  const closestApart = quantileSorted(apart.subarray(0, outside).sort(), outside < FEW ? 0 : TAIL);
  return {
    separation: closestApart / farthestJoined,
    spread: belowGroups === size ? 1 : spreadApart(means.values, means.of, group, m),
  };
}

/**
 * In a hierarchy everything in one group sees everything in another at one distance: per pair of groups,
 * the ratio of the farthest to the closest pair of `below` groups between them (the 90th and 10th
 * percentiles from ten on); their median. Single nodes are left out (one noisy round trip per pair):
 * this is what tells zones that merely differ in distance from a coarser level.
 */
function spreadApart(values: Float32Array, of: Int32Array, group: Int32Array, m: number): number {
  const between = new Map<string, number[]>();
  for (let i = 0; i < m; i++)
    for (let j = i + 1; j < m; j++) {
      const mean = values[i * m + j]!;
      const [gi, gj] = [group[of[i]!]!, group[of[j]!]!];
      if (mean !== mean || gi === gj) continue;
      const key = gi < gj ? `${gi} ${gj}` : `${gj} ${gi}`;
      const list = between.get(key) ?? [];
      list.push(mean);
      between.set(key, list);
    }
  const ratios = [...between.values()]
    .filter((list) => list.length > 1)
    .map((list) => {
      const sorted = Float32Array.from(list).sort();
      const tail = list.length < 10 ? 0 : 0.1;
      return quantileSorted(sorted, 1 - tail) / quantileSorted(sorted, tail);
    });
  return ratios.length === 0 ? 1 : median(ratios);
}

/** The mean round trip between each pair of `below` groups (NaN: none measured), and a member slot of each. */
function groupMeans(below: Int32Array, m: number, rtt: Float32Array, size: number) {
  const index = new Int32Array(size).fill(-1);
  const of = new Int32Array(m);
  let next = 0;
  for (let slot = 0; slot < size; slot++)
    if (index[below[slot]!] === -1) {
      of[next] = slot;
      index[below[slot]!] = next++;
    }
  const sums = new Float64Array(m * m);
  const counts = new Float64Array(m * m);
  for (let a = 0; a < size; a++) {
    const ga = index[below[a]!]!;
    for (let b = a + 1; b < size; b++) {
      const value = rtt[a * size + b]!;
      if (value !== value) continue;
      const gb = index[below[b]!]!;
      sums[ga * m + gb] = sums[ga * m + gb]! + value;
      counts[ga * m + gb] = counts[ga * m + gb]! + 1;
    }
  }
  const values = new Float32Array(m * m).fill(Number.NaN);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < m; j++) {
      const count = counts[i * m + j]! + counts[j * m + i]!;
      if (i !== j && count > 0) values[i * m + j] = (sums[i * m + j]! + sums[j * m + i]!) / count;
    }
  return { values, of };
}
