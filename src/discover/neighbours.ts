// Each node's nearest measured nodes: the peers that see the rest of the fleet as it does (in a hierarchy,
// a rack mate is exactly as far from every other node), which the offsets and the outlier check compare with.

import type { RttMatrix } from './matrix.ts';

export const NEIGHBOURS = 5;
/**
 * Round trips within this factor of each other are taken as one level: ±15 % noise spans at most 1.35×,
 * and a level is a jump of 1.5× (levels.ts).
 */
export const SAME_LEVEL = 1.5;

/** Per slot, the slots of its NEIGHBOURS nearest measured nodes, nearest first. */
export function nearestNeighbours(matrix: RttMatrix): number[][] {
  return Array.from({ length: matrix.size }, (_, slot) => nearestSlots(matrix, slot));
}

function nearestSlots(matrix: RttMatrix, a: number): number[] {
  const { size, rtt } = matrix;
  const slots: number[] = [];
  const distances: number[] = [];
  for (let b = 0; b < size; b++) {
    const distance = rtt[a * size + b]!;
    if (distance !== distance) continue;
    if (slots.length === NEIGHBOURS && distance >= distances[NEIGHBOURS - 1]!) continue;
    let at = Math.min(slots.length, NEIGHBOURS - 1);
    while (at > 0 && distances[at - 1]! > distance) at--;
    slots.splice(at, 0, b);
    distances.splice(at, 0, distance);
    if (slots.length > NEIGHBOURS) {
      slots.pop();
      distances.pop();
    }
  }
  return slots;
}
