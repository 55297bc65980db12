// Outlier pairs: one pair's median can be far off (a flaky path, a probe that raced a GC pause), and a mean
// over a few pairs would carry it into the tree. A node's nearest neighbours see every other node as it
// does, so each neighbour a' of a says what rtt(a, b) should be: in a hierarchy, of the three round trips
// between a, a' and b the two largest are equal, so rtt(a, b) is the larger of rtt(a, a') and rtt(a', b)
// when those are at different levels, or when a' is at a's finest level. When both are one level above
// a's finest (a' in another zone of a small cluster), a and b may be anywhere below it: that neighbour
// says nothing. A pair more than FACTOR off the median of what a's and b's neighbours say, either way, is
// dropped as if not measured. Racks and blocks are 2.5× apart, so a pair at a group's edge is not
// mistaken for one.

import { medianSorted } from '../stats/order.ts';
import { NEIGHBOURS, SAME_LEVEL } from './neighbours.ts';

const FACTOR = 3;

/** Drops outlier pairs from `rtt` (in place); answers how many. */
export function dropOutlierPairs(rtt: Float32Array, size: number, neighbours: readonly (readonly number[])[]): number {
  const expected = new Float64Array(2 * NEIGHBOURS);
  const drop: number[] = [];
  for (let a = 0; a < size; a++)
    for (let b = a + 1; b < size; b++) {
      const value = rtt[a * size + b]!;
      if (value !== value) continue;
      const count = said(rtt, size, b, a, neighbours[b]!, expected, said(rtt, size, a, b, neighbours[a]!, expected, 0));
      if (count === 0) continue;
      const typical = medianSorted(expected.subarray(0, count).sort());
      if (value > FACTOR * typical || value * FACTOR < typical) drop.push(a * size + b);
    }
  for (const at of drop) rtt[at] = rtt[(at % size) * size + Math.floor(at / size)] = Number.NaN;
  return drop.length;
}

/** Adds to `into` (from `count` on) what a's neighbours say rtt(a, b) is; answers the new count. */
function said(
  rtt: Float32Array,
  size: number,
  a: number,
  b: number,
  near: readonly number[],
  into: Float64Array,
  count: number,
): number {
  if (near.length === 0) return count;
  // How far a's finest level reaches. If that is b (a low outlier), a's other neighbours are far above it.
  const finest = SAME_LEVEL * rtt[a * size + near[0]!]!;
  for (const other of near) {
    const across = other === b ? Number.NaN : rtt[other * size + b]!;
    if (across !== across) continue;
    const to = rtt[a * size + other]!;
    const [low, high] = to < across ? [to, across] : [across, to];
    if (to <= finest || high > SAME_LEVEL * low) into[count++] = high;
  }
  return count;
}
