// A mergeable RTT histogram with bounded relative error (the DDSketch idea):
// bucket i holds values in (γ^(i-1), γ^i], so any quantile read back is
// within ±(γ-1)/2 ≈ 2% of a true sample. Agents summarise their samples in
// it and the writer adds the agents' histograms of a zone pair together,
// which percentiles themselves cannot be.

/** γ = 1.04: 2% relative accuracy; 1 µs .. 60 s spans about 450 buckets, most of them empty. */
const GAMMA = 1.04;
const LOG_GAMMA = Math.log(GAMMA);
/** Values below this (a microsecond) share the lowest bucket. */
const MIN_MS = 0.001;
/** Values above this (a minute, far beyond any probe timeout) share the highest bucket. */
const MAX_MS = 60_000;

/** Sparse: bucket index → count. */
export type Buckets = ReadonlyMap<number, number>;

export function bucketOf(ms: number): number {
  return Math.ceil(Math.log(Math.min(Math.max(ms, MIN_MS), MAX_MS)) / LOG_GAMMA);
}

/** The buckets a histogram can hold: an index outside them did not come from bucketOf. */
export const MIN_BUCKET = bucketOf(MIN_MS);
export const MAX_BUCKET = bucketOf(MAX_MS);

/** The value a bucket stands for: the middle of its range, in ms. */
export function valueOf(bucket: number): number {
  return (2 * GAMMA ** bucket) / (1 + GAMMA);
}

export function add(into: Map<number, number>, bucket: number, count = 1): void {
  into.set(bucket, (into.get(bucket) ?? 0) + count);
}

export function merge(into: Map<number, number>, from: Buckets): void {
  for (const [bucket, count] of from) add(into, bucket, count);
}

export function total(buckets: Buckets): number {
  let sum = 0;
  for (const count of buckets.values()) sum += count;
  return sum;
}

/** The q-quantile (0..1) by the nearest-rank rule, or undefined when empty. */
export function quantileOf(buckets: Buckets, q: number): number | undefined {
  const count = total(buckets);
  if (count === 0) return undefined;
  const rank = Math.max(1, Math.ceil(q * count));
  let seen = 0;
  for (const bucket of [...buckets.keys()].sort((a, b) => a - b)) {
    seen += buckets.get(bucket)!;
    if (seen >= rank) return valueOf(bucket);
  }
  return undefined;
}
