// Order statistics over the first `length` values of a scratch array (sorted in place).

export function quantile(values: Float64Array | Float32Array, length: number, q: number): number {
  if (length === 0) return Number.NaN;
  const sorted = values.subarray(0, length).sort();
  return sorted[Math.min(length - 1, Math.max(0, Math.round(q * (length - 1))))]!;
}

/** The middle value, or the mean of the two middle ones: over the few values of a small cluster, unbiased. */
export function median(values: Float64Array | Float32Array, length: number): number {
  if (length === 0) return Number.NaN;
  const sorted = values.subarray(0, length).sort();
  const half = length >> 1;
  return length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}
