// Average-linkage clustering with missing pairs: the distance between two clusters is the mean of the
// measured round trips between their nodes (Infinity while none is measured). That mean of a merged
// cluster lies between the means of its parts, so the linkage is reducible and the nearest-neighbour
// chain finds the same tree as the textbook O(n³) loop in O(n²) time.

export interface Merge {
  /** Slots of a node in each of the two clusters merged. */
  readonly left: number;
  readonly right: number;
  readonly heightMs: number;
}

/** The size − 1 merges of the tree, lowest first. `rtt` is size × size, NaN where not measured. */
export function averageLinkage(rtt: Float32Array, size: number): Merge[] {
  const sums = new Float32Array(size * size);
  const counts = new Float32Array(size * size);
  for (let at = 0; at < size * size; at++) {
    const value = rtt[at]!;
    if (value === value) {
      sums[at] = value;
      counts[at] = 1;
    }
  }
  const active = new Uint8Array(size).fill(1);
  const merges: Merge[] = [];
  const chain: number[] = [];
  const distance = (i: number, j: number) => {
    const count = counts[i * size + j]!;
    return count > 0 ? sums[i * size + j]! / count : Number.POSITIVE_INFINITY;
  };
  let next = 0;
  while (merges.length < size - 1) {
    if (chain.length === 0) {
      while (active[next] === 0) next++;
      chain.push(next);
    }
    const top = chain[chain.length - 1]!;
    const previous = chain.length > 1 ? chain[chain.length - 2]! : -1;
    // Ties go to the previous link, which is what makes the chain end.
    let best = previous;
    let bestDistance = previous >= 0 ? distance(top, previous) : Number.POSITIVE_INFINITY;
    for (let j = 0; j < size; j++) {
      if (j === top || active[j] === 0) continue;
      const d = distance(top, j);
      if (d < bestDistance || best < 0) {
        best = j;
        bestDistance = d;
      }
    }
    if (best !== previous) {
      chain.push(best);
      continue;
    }
    chain.length -= 2;
    merges.push({ left: previous, right: top, heightMs: bestDistance });
    // Cluster `top` joins cluster `previous`: sums and counts add.
    active[top] = 0;
    for (let k = 0; k < size; k++) {
      if (active[k] === 0 || k === previous) continue;
      const into = previous * size + k;
      const from = top * size + k;
      sums[into] = sums[k * size + previous] = sums[into]! + sums[from]!;
      counts[into] = counts[k * size + previous] = counts[into]! + counts[from]!;
    }
  }
  return merges.sort((x, y) => x.heightMs - y.heightMs);
}
