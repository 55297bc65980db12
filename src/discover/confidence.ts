// How sure a level is: of the measured node pairs it decides (joined by it but apart one level finer, or
// apart by it but joined one level coarser), the share whose round trip is on the side of its threshold
// that its groups say. Over the round trips with degraded nodes' offsets removed.

import type { Cut } from './levels.ts';

export function confidences(found: readonly Cut[], rtt: Float32Array, size: number): number[] {
  const levels = found.length;
  const decided = new Float64Array(levels);
  const agreeing = new Float64Array(levels);
  const groupOf = (level: number, slot: number) =>
    level < 0 ? slot : level >= levels ? 0 : found[level]!.group[slot]!;
  for (let a = 0; a < size; a++)
    for (let b = a + 1; b < size; b++) {
      const value = rtt[a * size + b]!;
      if (value !== value) continue;
      for (let level = 0; level < levels; level++) {
        const joined = groupOf(level, a) === groupOf(level, b);
        const decides = joined
          ? groupOf(level - 1, a) !== groupOf(level - 1, b)
          : groupOf(level + 1, a) === groupOf(level + 1, b);
        if (!decides) continue;
        decided[level]!++;
        if (joined === value < found[level]!.thresholdMs) agreeing[level]!++;
      }
    }
  return Array.from(decided, (count, level) => (count === 0 ? 0 : agreeing[level]! / count));
}
