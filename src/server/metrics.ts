// The webhook's own metrics, registered in the registry serve creates.

import { Counter, Histogram, type Registry } from 'prom-client';
import type { Outcome } from '../admission/handler.ts';
import { PolicyTallies } from './tally.ts';

/**
 * Buckets from 50 µs to 1 s: fine enough to tell a 100 µs decision from a 250 µs one, and around the default
 * 5 ms budget (7.5 ms) to tell an answer a little past it from one twice as late.
 */
export const latencyBuckets = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
];

/** What became of an AdmissionReview; error: the decision threw (a 500). */
export type RequestOutcome = Outcome | 'error';

export interface WebhookMetrics {
  readonly requests: Counter<'outcome' | 'dry_run'>;
  readonly latency: Histogram<'outcome'>;
  readonly budgetExceeded: Counter<'stage'>;
  readonly rejected: Counter<'code'>;
  readonly policyMatches: Counter<'policy' | 'enforcement'>;
  readonly policyApplied: Counter<'policy' | 'enforcement'>;
  /** policyMatches and policyApplied as the request path counts them: added to the counters when they are read. */
  readonly matched: PolicyTallies;
  readonly applied: PolicyTallies;
  readonly reviewsRemembered: Counter;
  /** The series an answer counts in, bound once: by outcome, then [not a dry run, a dry run]. */
  readonly answered: Readonly<Record<RequestOutcome, readonly [AnsweredSeries, AnsweredSeries]>>;
}

export interface AnsweredSeries {
  readonly requests: Counter.Internal;
  readonly latency: Histogram.Internal<'outcome'>;
}

const outcomes: readonly RequestOutcome[] = ['allowed', 'patched', 'denied', 'skipped', 'deferred', 'error'];

export function createWebhookMetrics(registry: Registry): WebhookMetrics {
  const metrics = registerMetrics(registry);
  // Every series from zero, so that rate() and alerts see them before the first event.
  const series = (outcome: RequestOutcome, dryRun: boolean): AnsweredSeries => {
    const requests = metrics.requests.labels({ outcome, dry_run: String(dryRun) });
    requests.inc(0);
    return { requests, latency: metrics.latency.labels({ outcome }) };
  };
  const answered = {} as Record<RequestOutcome, readonly [AnsweredSeries, AnsweredSeries]>;
  for (const outcome of outcomes) {
    metrics.latency.zero({ outcome });
    answered[outcome] = [series(outcome, false), series(outcome, true)];
  }
  for (const stage of ['before_decision', 'decision']) metrics.budgetExceeded.inc({ stage }, 0);
  for (const code of [400, 413, 415]) metrics.rejected.inc({ code }, 0);
  return { ...metrics, answered };
}

function registerMetrics(registry: Registry): Omit<WebhookMetrics, 'answered'> {
  const registers = [registry];
  const tallies: { matched?: PolicyTallies; applied?: PolicyTallies } = {};
  const metrics = {
    requests: new Counter({
      name: 'topogate_admission_requests_total',
      help: 'AdmissionReviews answered, by outcome (allowed, patched, denied, skipped, deferred, error) and whether they were dry runs.',
      labelNames: ['outcome', 'dry_run'],
      registers,
    }),
    latency: new Histogram({
      name: 'topogate_admission_duration_seconds',
      help: "From a request's arrival to its answer, by outcome.",
      labelNames: ['outcome'],
      buckets: latencyBuckets,
      registers,
    }),
    budgetExceeded: new Counter({
      name: 'topogate_budget_exceeded_total',
      help: 'Requests over the latency budget: stage "before_decision" were admitted unchanged without deciding; stage "decision" were decided but answered late.',
      labelNames: ['stage'],
      registers,
    }),
    rejected: new Counter({
      name: 'topogate_rejected_requests_total',
      help: 'Requests refused before decoding an AdmissionReview, by HTTP status (400, 413, 415).',
      labelNames: ['code'],
      registers,
    }),
    policyMatches: new Counter({
      name: 'topogate_policy_matches_total',
      help: 'Pods a SchedulingPolicy matched, by policy and enforcement (Enforce, Audit); a workload its rollout leaves out is not matched (dry runs not counted).',
      labelNames: ['policy', 'enforcement'],
      registers,
      collect: () => tallies.matched?.flush(),
    }),
    policyApplied: new Counter({
      name: 'topogate_policy_applied_total',
      help: 'Pods a SchedulingPolicy changed, by policy and enforcement; under Audit, Pods it would have changed (dry runs not counted).',
      labelNames: ['policy', 'enforcement'],
      registers,
      collect: () => tallies.applied?.flush(),
    }),
    reviewsRemembered: new Counter({
      name: 'topogate_admission_reviews_remembered_total',
      help: "AdmissionReviews not parsed again: once the arrays never read are cut (managedFields, volumes and mounts, environments), the same body as one met before but for the uid and a name drawn from generateName (a workload's replicas).",
      registers,
    }),
  };
  tallies.matched = new PolicyTallies(metrics.policyMatches);
  tallies.applied = new PolicyTallies(metrics.policyApplied);
  return { ...metrics, matched: tallies.matched, applied: tallies.applied };
}
