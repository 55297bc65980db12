// What POST /mutate counts and logs of a request.

import type { Logger } from 'pino';
import type { Handled } from '../admission/handler.ts';
import type { AdmissionRequest } from '../admission/review.ts';
import type { Decision } from '../policy/types.ts';
import type { RequestOutcome, WebhookMetrics } from './metrics.ts';

/** Counts an answered request by outcome and dry run; answers its time so far, in ms. */
export function countAnswered(
  metrics: WebhookMetrics,
  outcome: RequestOutcome,
  dryRun: boolean,
  arrival: number,
): number {
  const elapsedMs = performance.now() - arrival;
  const series = metrics.answered[outcome][dryRun ? 1 : 0];
  series.requests.inc();
  series.latency.observe(elapsedMs / 1000);
  return elapsedMs;
}

export function countPolicies(metrics: WebhookMetrics, decision: Decision): void {
  const audited = decision.audited ?? [];
  for (const policy of decision.matched) {
    const audit = audited.some((outcome) => outcome.policy === policy);
    metrics.matched.of(policy, audit ? 'Audit' : 'Enforce').count++;
  }
  for (const policy of decision.applied) metrics.applied.of(policy, 'Enforce').count++;
  for (const outcome of audited) if (outcome.wouldChange) metrics.applied.of(outcome.policy, 'Audit').count++;
}

/** The debug line of an answered request. */
export function logAnswered(
  log: Logger,
  request: AdmissionRequest,
  dryRun: boolean,
  handled: Handled,
  elapsedMs: number,
): void {
  log.debug(
    {
      uid: request.uid,
      ...describe(request),
      dryRun,
      outcome: handled.outcome,
      patchOps: handled.answer.patch.length,
      matched: handled.decision?.matched,
      snapshot: handled.decision?.snapshot,
      warnings: handled.answer.warnings.length,
      ms: elapsedMs,
    },
    'admission request',
  );
}

/** Which object a request is about, for logs: never its body. */
export function describe(request: AdmissionRequest): Record<string, unknown> {
  const metadata = (request.object as { metadata?: { name?: unknown; generateName?: unknown } } | null | undefined)
    ?.metadata;
  return {
    operation: request.operation,
    kind: request.kind?.kind,
    subResource: request.subResource,
    namespace: request.namespace,
    name: request.name || metadata?.name || metadata?.generateName,
  };
}
