// Degraded nodes: a node that adds a constant to every round trip it takes part in (a throttled CPU, a
// slow NIC) would look far from everything and land in a group of its own. Two nodes close to each other
// see every third node at the same distance (that is what a hierarchy is), so for a node a and one of its
// nearest neighbours b, the median over third nodes c of rtt(a,c) − rtt(b,c) is offset(a) − offset(b):
// robust to noise, to missing pairs, and to a degraded neighbour among the few asked.

import type { RttMatrix } from './matrix.ts';
import { median } from './median.ts';
import { NEIGHBOURS } from './neighbours.ts';

/** Fewer third nodes measured from both than this, and a neighbour's difference says nothing. */
const MIN_COMMON = 8;
/** Robust standard deviations above the fleet's median offset for a node to count as degraded. */
const OUTLIER_SIGMAS = 8;
/** …and at least this share of the fleet's typical nearest-neighbour round trip. */
const MIN_SHARE_OF_NEAREST = 0.5;

export interface Offsets {
  /** Per slot: what to subtract from each of the node's round trips (0 unless degraded). */
  readonly bySlot: Float64Array;
  readonly degraded: readonly number[];
}

export function degradedOffsets(matrix: RttMatrix, neighbourSlots: readonly (readonly number[])[]): Offsets {
  const { size, rtt } = matrix;
  const raw = new Float64Array(size);
  const nearest = new Float64Array(size);
  const scratch = new Float64Array(size);
  const differences = new Float64Array(NEIGHBOURS);
  for (let a = 0; a < size; a++) {
    const neighbours = neighbourSlots[a]!;
    nearest[a] = neighbours.length > 0 ? rtt[a * size + neighbours[0]!]! : Number.NaN;
    let found = 0;
    for (const b of neighbours) {
      let common = 0;
      for (let c = 0; c < size; c++) {
        const difference = rtt[a * size + c]! - rtt[b * size + c]!;
        if (difference === difference) scratch[common++] = difference;
      }
      if (common >= MIN_COMMON) differences[found++] = median(scratch, common);
    }
    raw[a] = found > 0 ? median(differences, found) : 0;
  }
  const center = median(Float64Array.from(raw), size);
  const spread =
    1.4826 *
    median(
      Float64Array.from(raw, (value) => Math.abs(value - center)),
      size,
    );
  const finite = Float64Array.from(nearest.filter((value) => value === value));
  const floor = MIN_SHARE_OF_NEAREST * (finite.length > 0 ? median(finite, finite.length) : 0);
  const bySlot = new Float64Array(size);
  const degraded: number[] = [];
  for (let a = 0; a < size; a++) {
    const excess = raw[a]! - center;
    if (excess > OUTLIER_SIGMAS * spread && excess > floor) {
      bySlot[a] = excess;
      degraded.push(a);
    }
  }
  return { bySlot, degraded };
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
