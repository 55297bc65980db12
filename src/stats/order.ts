// Order statistics over plain numbers, the one definition every part states its figures by: the median is the
// middle value (the mean of the two middle ones for an even count); a quantile is nearest-rank, the smallest value
// with at least a share q of all values at or below it, so it is always one of the values. Values are numbers, not
// NaN (a typed array sorts NaN last); no values at all answer NaN.

/** The q-quantile (0..1) of values sorted ascending, nearest-rank. */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The median of values sorted ascending. */
export function medianSorted(sorted: ArrayLike<number>): number {
  // No values: the mean of two missing ones, NaN.
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

/** The q-quantile (0..1) of values in any order, which are left as they are. */
export function quantile(values: ArrayLike<number>, q: number): number {
  return quantileSorted(Float64Array.from(values).sort(), q);
}

/** The median of values in any order, which are left as they are. */
export function median(values: ArrayLike<number>): number {
  return medianSorted(Float64Array.from(values).sort());
}
