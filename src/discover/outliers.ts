// Outlier pairs: one pair's median can be far off (a flaky path, a probe that raced a GC pause), and a mean
// over a few pairs would carry it into the tree. A node's nearest neighbours see every other node as it
// does, so a pair (a, b) is expected at the median of rtt(a', b) over a's neighbours a' and rtt(a, b')
// over b's; a pair off by more than FACTOR either way is dropped as if not measured. Racks and blocks are
// 2.5× apart, so a pair between levels at a group's edge is not mistaken for one.

import { median } from './median.ts';
import { NEIGHBOURS } from './neighbours.ts';

const FACTOR = 3;

/** Drops outlier pairs from `rtt` (in place); answers how many. */
export function dropOutlierPairs(rtt: Float32Array, size: number, neighbours: readonly (readonly number[])[]): number {
  const expected = new Float64Array(2 * NEIGHBOURS);
  const drop: number[] = [];
  for (let a = 0; a < size; a++)
    for (let b = a + 1; b < size; b++) {
      const value = rtt[a * size + b]!;
      if (value !== value) continue;
      let count = 0;
      for (const near of neighbours[a]!) {
        const seen = near === b ? Number.NaN : rtt[near * size + b]!;
        if (seen === seen) expected[count++] = seen;
      }
      for (const near of neighbours[b]!) {
        const seen = near === a ? Number.NaN : rtt[a * size + near]!;
        if (seen === seen) expected[count++] = seen;
      }
      if (count === 0) continue;
      const typical = median(expected, count);
      if (value > FACTOR * typical || value * FACTOR < typical) drop.push(a * size + b);
    }
  for (const at of drop) rtt[at] = rtt[(at % size) * size + Math.floor(at / size)] = Number.NaN;
  return drop.length;
}
