// The API server's view (bench/apiserver.ts), pure: what one burst added to
// its histogram for a webhook, the rounds' totals, the target's verdict and
// the section of BENCHMARKS.md.

import { LATENCY_HISTOGRAM } from './http.ts';
import type { Bucket } from './metrics.ts';

export const API_SERVER_HEADING = "## 10. The API server's view";
/** The target: topogate's calls outside the first bucket at most the no-op's plus this many per 200 calls. */
export const API_SERVER_ALLOWANCE_PER_200 = 5;

export interface Buckets {
  /** Upper bound (s) → cumulative count, for topogate's webhook, summed over operation, type and rejected. */
  readonly cumulative: ReadonlyMap<number, number>;
  readonly count: number;
}

export interface Burst {
  readonly what: string;
  readonly calls: number;
  /** Calls the API server timed over its first bucket. */
  readonly outside: number;
  /** Upper bound of the first bucket, s. */
  readonly firstBucket: number;
  /** Calls per bucket upper bound (s), this burst only. */
  readonly perBucket: readonly { readonly le: number; readonly calls: number }[];
  readonly seconds: number;
  /** By topogate's own clock (arrival to answer): its answers in the burst, and those over the first bucket. */
  readonly topogate?: { readonly answers: number; readonly outside: number };
}

/** What one burst added to the histogram. */
export function burstOf(
  what: string,
  before: Buckets,
  after: Buckets,
  seconds: number,
  own?: { readonly before: readonly Bucket[]; readonly after: readonly Bucket[] },
): Burst {
  const bounds = [...after.cumulative.keys()].sort((a, b) => a - b);
  const delta = (le: number) => (after.cumulative.get(le) ?? 0) - (before.cumulative.get(le) ?? 0);
  const firstBucket = bounds[0] ?? Number.NaN;
  const calls = after.count - before.count;
  const perBucket = bounds.map((le, index) => ({
    le,
    calls: delta(le) - (index === 0 ? 0 : delta(bounds[index - 1]!)),
  }));
  const burst = { what, calls, outside: calls - delta(firstBucket), firstBucket, perBucket, seconds };
  if (!own) return burst;
  const ownCount = (buckets: readonly Bucket[], le: number) => buckets.find((bucket) => bucket.le === le)?.count ?? 0;
  const ownDelta = (le: number) => ownCount(own.after, le) - ownCount(own.before, le);
  const answers = ownDelta(Number.POSITIVE_INFINITY);
  return { ...burst, topogate: { answers, outside: answers - ownDelta(firstBucket) } };
}

export type SideName = 'topogate' | 'no-op';

export interface Run {
  readonly side: SideName;
  readonly round: number;
  readonly bursts: readonly Burst[];
}

/** One run of bench/apiserver.ts: its rounds, and what it ran with. */
export interface ApiServerReport {
  readonly at: string;
  readonly budgetMs: number;
  readonly nodes: number;
  /** The API server's histogram, by name. */
  readonly histogram: string;
  readonly runs: readonly Run[];
  /** Load average (1, 5, 15 min) when it ended. */
  readonly load: readonly number[];
}

const bucketCell = (burst: Burst) =>
  burst.perBucket
    .filter((bucket) => bucket.calls > 0)
    .map((bucket) => `≤ ${bucket.le === Number.POSITIVE_INFINITY ? '∞' : `${bucket.le * 1000} ms`}: ${bucket.calls}`)
    .join(', ');

/** Per burst kind and side, every round summed: calls outside the first bucket, of all calls. */
function totals(runs: readonly Run[], side: SideName, index: number): { outside: number; calls: number } {
  const bursts = runs.filter((run) => run.side === side).map((run) => run.bursts[index]!);
  return {
    outside: bursts.reduce((sum, burst) => sum + burst.outside, 0),
    calls: bursts.reduce((sum, burst) => sum + burst.calls, 0),
  };
}

/**
 * The target: for the Deployment's replicas, calls outside the first bucket at most the no-op's plus 5 of
 * every 200 calls. Undefined when no burst of replicas ran.
 */
export function apiServerVerdict(
  report: ApiServerReport,
): { target: string; measured: string; met: boolean } | undefined {
  const index = report.runs[0]?.bursts.findIndex((burst) => burst.what.startsWith('a Deployment')) ?? -1;
  if (index < 0) return undefined;
  const [topogate, noop] = [totals(report.runs, 'topogate', index), totals(report.runs, 'no-op', index)];
  const allowed = noop.outside + (API_SERVER_ALLOWANCE_PER_200 * topogate.calls) / 200;
  const first = report.runs[0]!.bursts[index]!.firstBucket * 1000;
  return {
    target: `the API server's view, ${report.runs[0]!.bursts[index]!.what}: calls over ${first} ms ≤ the no-op's + ${API_SERVER_ALLOWANCE_PER_200} of 200`,
    measured: `${topogate.outside} of ${topogate.calls} (the no-op: ${noop.outside} of ${noop.calls})`,
    met: topogate.outside <= allowed,
  };
}

export function renderApiServerSection(report: ApiServerReport): string {
  const { runs, budgetMs } = report;
  const first = runs[0]?.bursts[0]?.firstBucket ?? 0.005;
  const kinds = runs[0]?.bursts.map((burst) => burst.what) ?? [];
  const summary = kinds.map((what, index) => {
    const [topogate, noop] = [totals(runs, 'topogate', index), totals(runs, 'no-op', index)];
    return `| ${what} | **${topogate.outside} of ${topogate.calls}** | ${noop.outside} of ${noop.calls} |`;
  });
  const rows = runs.flatMap((run) =>
    run.bursts.map(
      (burst) =>
        `| ${run.round + 1} | ${burst.what} | ${run.side} | ${burst.calls} | ${burst.outside} | ${burst.topogate ? `${burst.topogate.outside} of ${burst.topogate.answers}` : '—'} | ${bucketCell(burst)} | ${burst.seconds.toFixed(1)} |`,
    ),
  );
  return [
    API_SERVER_HEADING,
    '',
    `\`node bench/apiserver.ts\` (or \`npm run bench\`), ${report.at}: the e2e control plane (test/e2e/harness, Kubernetes`,
    `v1.37.2 built from source) with topogate registered as its mutating webhook (\`serve --topology kube\`,`,
    `\`--budget-ms ${budgetMs}\`, the e2e suite's policies over its fleet of ${report.nodes} nodes), then the no-op webhook`,
    '(`bench/noop-webhook.ts`, same certificate, same rules) registered in its place for the same bursts, in',
    `turns (A B A B). The API server's own histogram \`${report.histogram}\` for the webhook, read from its /metrics`,
    `before and after each burst: calls outside its first bucket (${first * 1000} ms), which the target wants at zero.`,
    "The API server's clock includes its own side of the call (encoding the review, TLS, applying the patch), on",
    'the same 2 cores as etcd, the scheduler, the controller manager and the webhook, so the no-op row is the floor',
    `this cluster allows on this machine. Load average when it ended: ${report.load.map((load) => load.toFixed(1)).join(', ')}.`,
    '',
    '| burst | topogate: outside the first bucket | no-op: outside the first bucket |',
    '| --- | --- | --- |',
    ...summary,
    '',
    `Each burst, with topogate's own \`${LATENCY_HISTOGRAM}\` (arrival to answer) beside the API server's:`,
    '',
    "| round | burst | webhook | calls | outside the first bucket | topogate's own clock: over 5 ms | calls per bucket (API server) | seconds |",
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
