// Reading topogate's /metrics (Prometheus text format) before and after a load.

/** The sum of every sample of `name` (over its label sets, or those holding `label`, e.g. `stage="decision"`); 0 when absent. */
export function metricSum(text: string, name: string, label?: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (label !== undefined && !line.includes(label))) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    const value = Number(rest.slice(rest.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) sum += value;
  }
  return sum;
}

export interface Bucket {
  readonly le: number;
  readonly count: number;
}

/** A histogram's cumulative buckets, summed over its label sets, in ascending `le`. */
export function histogram(text: string, name: string): Bucket[] {
  const counts = new Map<number, number>();
  const pattern = new RegExp(`^${name}_bucket\\{(?:.*,)?le="([^"]+)"[^}]*\\} (\\S+)`);
  for (const line of text.split('\n')) {
    const match = pattern.exec(line);
    if (!match) continue;
    const le = match[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(match[1]);
    counts.set(le, (counts.get(le) ?? 0) + Number(match[2]));
  }
  return [...counts].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le);
}

/** The bucket holding the slowest observation made between two readings: (lower, upper], seconds. */
export function slowestBucket(
  before: readonly Bucket[],
  after: readonly Bucket[],
): { lower: number; upper: number } | undefined {
  const total = (after.at(-1)?.count ?? 0) - (before.at(-1)?.count ?? 0);
  if (total <= 0) return undefined;
  let lower = 0;
  for (const bucket of after) {
    const earlier = before.find((b) => b.le === bucket.le)?.count ?? 0;
    if (bucket.count - earlier >= total) return { lower, upper: bucket.le };
    lower = bucket.le;
  }
  return undefined;
}
