// Order statistics over samples, the way every section of the report states them.

/** The q-quantile (0..1) of sorted samples, nearest-rank. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function median(values: readonly number[]): number {
  return quantile(Float64Array.from(values).sort(), 0.5);
}

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly count: number;
}

export function percentiles(samples: ArrayLike<number>): Percentiles {
  const sorted = Float64Array.from(samples as ArrayLike<number>).sort();
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: quantile(sorted, 1), count: sorted.length };
}
