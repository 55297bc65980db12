// Degraded nodes: a node that adds a constant to every round trip it takes part in (a throttled CPU, a
// slow NIC) would look far from everything and land in a group of its own. Two nodes close to each other
// see every third node at the same distance (that is what a hierarchy is), so for a node a and one of its
// nearest neighbours b, the median over third nodes c of rtt(a,c) − rtt(b,c) is offset(a) − offset(b):
// robust to noise, to missing pairs, and to a degraded neighbour among the few asked.

import type { RttMatrix } from './matrix.ts';
import { medianSorted } from '../stats/order.ts';
import { NEIGHBOURS, SAME_LEVEL } from './neighbours.ts';

/** Fewer third nodes measured from both than this, and a neighbour's difference says nothing. */
const MIN_COMMON = 2;
/** Robust standard deviations above the fleet's median offset for a node to count as degraded. */
const OUTLIER_SIGMAS = 8;
/** …and at least this share of the fleet's typical nearest-neighbour round trip… */
const MIN_SHARE_OF_NEAREST = 0.5;
/** …and this many standard errors of its own offset. */
const OWN_SIGMAS = 3;
/** Below this many nodes the fleet's spread of offsets is no yardstick. */
const FLEET = 30;

export interface Offsets {
  /** Per slot: what to subtract from each of the node's round trips (0 unless degraded). */
  readonly bySlot: Float64Array;
  readonly degraded: readonly number[];
}

export function degradedOffsets(matrix: RttMatrix, neighbourSlots: readonly (readonly number[])[]): Offsets {
  const { size, rtt } = matrix;
  const raw = new Float64Array(size);
  const noise = new Float64Array(size).fill(Number.NaN);
  const error = new Float64Array(size).fill(Number.POSITIVE_INFINITY);
  // Per node: its nearest neighbour's own nearest round trip, a excepted.
  const ownNearest = new Float64Array(size);
  const nearest = new Float64Array(size);
  const scratch = new Float64Array(size);
  const differences = new Float64Array(NEIGHBOURS);
  for (let a = 0; a < size; a++) {
    const neighbours = neighbourSlots[a]!;
    nearest[a] = neighbours.length > 0 ? rtt[a * size + neighbours[0]!]! : Number.NaN;
    let found = 0;
    for (const b of neighbours) {
      const between = rtt[a * size + b]!;
      // Only a neighbour at a's finest level sees the rest as a does (in a small cluster the 5 nearest
      // reach into other zones).
      if (between > SAME_LEVEL * nearest[a]!) break;
      let common = 0;
      for (let c = 0; c < size; c++) {
        const difference = rtt[a * size + c]! - rtt[b * size + c]!;
        if (difference === difference) scratch[common++] = difference;
      }
      if (common < MIN_COMMON) continue;
      const difference = medianSorted(scratch.subarray(0, common).sort());
      if (found === 0) [noise[a], error[a]] = noiseOf(rtt, size, a, b, difference);
      differences[found++] = difference;
    }
    raw[a] = found > 0 ? medianSorted(differences.subarray(0, found).sort()) : 0;
    ownNearest[a] = nearestOfNearest(rtt, size, a, neighbourSlots);
  }
  const center = medianSorted(Float64Array.from(raw).sort());
  const spread = 1.4826 * medianSorted(Float64Array.from(raw, (value) => Math.abs(value - center)).sort());
  const measured = Float64Array.from(noise.filter((value) => value === value));
  // Relative noise pooled over the fleet: one node's few third nodes say little about it.
  const relativeNoise = measured.length > 0 ? medianSorted(measured.sort()) : 0;
  const finite = Float64Array.from(nearest.filter((value) => value === value));
  const floor = MIN_SHARE_OF_NEAREST * (finite.length > 0 ? medianSorted(finite.sort()) : 0);
  const bySlot = new Float64Array(size);
  const degraded: number[] = [];
  for (let a = 0; a < size; a++) {
    const excess = raw[a]! - center;
    const outlying = size < FLEET || excess > OUTLIER_SIGMAS * spread;
    const uncertain = OWN_SIGMAS * relativeNoise * error[a]!;
    const inGroup = nearest[a]! - ownNearest[a]!;
    // A node alone in its group is far from its nearest neighbours as well, but not by what it is from all.
    const agreeing = Math.abs(inGroup - excess) <= uncertain;
    if (!(outlying && excess > floor && excess > uncertain && agreeing)) continue;
    // Short round trips are precise: the group's own figure, unless the third nodes are many.
    bySlot[a] = uncertain > OWN_SIGMAS * relativeNoise * ownNearest[a]! ? inGroup : excess;
    degraded.push(a);
  }
  return { bySlot, degraded };
}

/**
 * The round trip from a's nearest neighbour to its own nearest (a excepted). A degraded node's offset is
 * how much farther a is from that neighbour: seen in short round trips, which are precise.
 */
function nearestOfNearest(rtt: Float32Array, size: number, a: number, neighbourSlots: readonly (readonly number[])[]) {
  const nearest = neighbourSlots[a]![0];
  const own = nearest === undefined ? undefined : neighbourSlots[nearest]!.find((other) => other !== a);
  return own === undefined ? Number.NaN : rtt[nearest! * size + own]!;
}

/**
 * Round trips are noisy in proportion to their length, so a node's offset, a median of differences to far
 * third nodes, is uncertain in proportion to their round trips: in a small cluster a few far nodes are all
 * there is. Answers the relative noise of a's differences against b (σ over the round trip), and the
 * standard error of their median per unit of relative noise.
 */
function noiseOf(rtt: Float32Array, size: number, a: number, b: number, middle: number) {
  let deviation = 0;
  let squares = 0;
  let count = 0;
  for (let c = 0; c < size; c++) {
    const fromA = rtt[a * size + c]!;
    const fromB = rtt[b * size + c]!;
    if (!(fromA === fromA && fromB === fromB)) continue;
    deviation += Math.abs(fromA - fromB - middle) / fromB;
    squares += fromB * fromB;
    count++;
  }
  // σ from the mean absolute deviation; the median's standard error is 1.2533 σ / √n.
  return [(1.2533 * deviation) / count, (1.2533 * Math.sqrt(squares / count)) / Math.sqrt(count)] as const;
}

/** Round trips with the degraded nodes' offsets removed (never below a hundredth of the original). */
export function correctedRtt(matrix: RttMatrix, offsets: Offsets): Float32Array {
  const { size, rtt } = matrix;
  const corrected = Float32Array.from(rtt);
  for (const a of offsets.degraded)
    for (let b = 0; b < size; b++) {
      const at = a * size + b;
      const value = corrected[at]!;
      if (value !== value) continue;
      corrected[at] = corrected[b * size + a] = Math.max(value - offsets.bySlot[a]!, rtt[at]! / 100);
    }
  return corrected;
}
