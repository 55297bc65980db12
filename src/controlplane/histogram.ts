// Prometheus histograms as the control plane's components export them:
// cumulative buckets summed over the series a caller picks, the difference of
// two scrapes (what happened in between), and a quantile read from the
// buckets the way PromQL's histogram_quantile reads them.

import type { Sample } from '../topology/etcd/prometheus.ts';

export interface Histogram {
  /** Upper bounds (seconds), ascending, the last +Inf. */
  readonly bounds: readonly number[];
  /** Cumulative count per bound. */
  readonly counts: readonly number[];
}

/** The sum, by bucket, of every series of `name` whose labels `include` accepts; undefined when none is there. */
export function histogramOf(
  samples: readonly Sample[],
  name: string,
  include: (labels: Readonly<Record<string, string>>) => boolean = () => true,
): Histogram | undefined {
  const byBound = new Map<number, number>();
  const bucket = `${name}_bucket`;
  for (const sample of samples) {
    if (sample.name !== bucket || !include(sample.labels)) continue;
    const le = sample.labels.le;
    const bound = le === '+Inf' ? Infinity : Number(le);
    if (Number.isNaN(bound)) continue;
    byBound.set(bound, (byBound.get(bound) ?? 0) + sample.value);
  }
  if (!byBound.has(Infinity)) return undefined;
  const bounds = [...byBound.keys()].sort((a, b) => a - b);
  return { bounds, counts: bounds.map((bound) => byBound.get(bound) ?? 0) };
}

export function observations(histogram: Histogram): number {
  return histogram.counts.at(-1) ?? 0;
}

/**
 * What was observed between two scrapes of the same histogram. A restarted
 * process starts its counters again (fewer observations than before), and a
 * changed set of buckets cannot be subtracted: then the newer one is all there is.
 */
export function since(newer: Histogram, older: Histogram | undefined): Histogram {
  if (
    !older ||
    observations(newer) < observations(older) ||
    newer.bounds.length !== older.bounds.length ||
    newer.bounds.some((bound, i) => bound !== older.bounds[i])
  ) {
    return newer;
  }
  return { bounds: newer.bounds, counts: newer.counts.map((count, i) => Math.max(0, count - (older.counts[i] ?? 0))) };
}

/**
 * The q-quantile in seconds, interpolated linearly inside its bucket as
 * histogram_quantile does; a quantile in the +Inf bucket is the highest finite
 * bound. Undefined when nothing was observed.
 */
export function quantileOf(histogram: Histogram, q: number): number | undefined {
  const total = observations(histogram);
  if (total <= 0) return undefined;
  const rank = q * total;
  const { bounds, counts } = histogram;
  for (let i = 0; i < bounds.length; i++) {
    const count = counts[i] ?? 0;
    if (count < rank) continue;
    const upper = bounds[i] ?? Infinity;
    if (upper === Infinity) return bounds[i - 1] ?? 0;
    const lower = i === 0 ? 0 : (bounds[i - 1] ?? 0);
    const below = i === 0 ? 0 : (counts[i - 1] ?? 0);
    const inBucket = count - below;
    return inBucket <= 0 ? upper : lower + ((upper - lower) * (rank - below)) / inBucket;
  }
  return bounds.at(-2) ?? 0;
}

/** Milliseconds to 0.1 ms: finer would make a steady figure look changed at every scrape. */
export function toMs(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : Math.round(seconds * 10_000) / 10;
}
