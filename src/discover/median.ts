// Order statistics over the first `length` values of a scratch array (sorted in place).

export function quantile(values: Float64Array | Float32Array, length: number, q: number): number {
  if (length === 0) return Number.NaN;
  const sorted = values.subarray(0, length).sort();
  return sorted[Math.min(length - 1, Math.max(0, Math.round(q * (length - 1))))]!;
}

export const median = (values: Float64Array | Float32Array, length: number): number => quantile(values, length, 0.5);
