// Node pairs as a dense symmetric matrix over node slots (NaN: not measured).
// Float32 keeps 5,000 nodes at 100 MB; a round trip needs no more precision.

import type { RttPair } from './types.ts';

export interface RttMatrix {
  /** Slot → node name, sorted, so slots (and everything derived) do not depend on the input's order. */
  readonly names: readonly string[];
  readonly size: number;
  /** size × size, row-major, symmetric; NaN on the diagonal and where no pair was measured. */
  readonly rtt: Float32Array;
  /** Distinct node pairs measured. */
  readonly measured: number;
}

/** A pair given twice (either order) counts as the mean of its round trips. */
export function rttMatrix(pairs: readonly RttPair[]): RttMatrix {
  const names = [...new Set(pairs.flatMap((pair) => [pair.a, pair.b]))].sort();
  const slot = new Map(names.map((name, index) => [name, index]));
  const size = names.length;
  const rtt = new Float32Array(size * size).fill(Number.NaN);
  const seen = new Uint16Array(size * size);
  let measured = 0;
  for (const { a, b, rttMs } of pairs) {
    const i = slot.get(a)!;
    const j = slot.get(b)!;
    const at = i * size + j;
    const count = seen[at]!;
    if (count === 0) measured++;
    const mean = count === 0 ? rttMs : (rtt[at]! * count + rttMs) / (count + 1);
    rtt[at] = rtt[j * size + i] = mean;
    seen[at] = seen[j * size + i] = Math.min(count + 1, 0xffff);
  }
  return { names, size, rtt, measured };
}
