// POST /mutate: bytes in, AdmissionReview out, on node:http's request and
// response themselves (no Request/Response objects: they cost more per request
// than the rest of the HTTP layer). Every refusal names what is wrong; every
// AdmissionReview gets an answer in its own version.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { encodeReview } from '../admission/encode.ts';
import { allowed } from '../admission/answer.ts';
import {
  handleAdmission,
  type AdmittedPod,
  type ClaimDecider,
  type Handled,
  type PodDecider,
  type PodDeferrer,
} from '../admission/handler.ts';
import type { AdmissionRequest } from '../admission/review.ts';
import { ReviewMemo } from '../admission/reviewMemo.ts';
import type { Decision } from '../policy/types.ts';
import { declaredTooLarge, isJson, readIncoming } from './body.ts';
import { requestBudgetMs, skipWarning, type DecisionCost } from './budget.ts';
import { parseDuration } from './duration.ts';
import type { RequestOutcome, WebhookMetrics } from './metrics.ts';
import { replyFailure, replyJson } from './reply.ts';
import { nextStage, turnGate } from './turn.ts';

export interface MutateOptions {
  readonly decide: PodDecider;
  /** serve --defer overrun|always: the deferred answer instead of the budget's skip. */
  readonly defer?: PodDeferrer;
  /**
   * What a Pod that would overrun the budget and cannot be deferred gets: `skip`, admitted unchanged (serve
   * --defer never), or `decide`, decided late (the default: the time is spent already, the decision takes
   * microseconds, and a Pod admitted without its placement is worse than one admitted a little late).
   */
  readonly whenLate?: 'skip' | 'decide';
  /** The dra rule on ResourceClaim and ResourceClaimTemplate CREATE. */
  readonly decideClaim?: ClaimDecider;
  /** Told of each Pod admitted for real (the live model counts it until its watch brings it). */
  readonly admitted?: AdmittedPod;
  readonly budgetMs: number;
  readonly maxBodyBytes: number;
  readonly cost: DecisionCost;
  readonly metrics: WebhookMetrics;
  readonly log: Logger;
}

/** Answers one request that arrived at `arrival` (performance.now()'s clock); throws only on a bug of its own. */
export type MutateHandler = (request: IncomingMessage, response: ServerResponse, arrival: number) => Promise<void>;

export function mutateHandler({
  decide,
  defer,
  whenLate = 'skip',
  decideClaim,
  admitted,
  budgetMs,
  maxBodyBytes,
  cost,
  metrics,
  log,
}: MutateOptions): MutateHandler {
  function refuse(response: ServerResponse, code: 400 | 413 | 415, message: string): void {
    metrics.rejected.inc({ code });
    log.debug({ code, message }, 'request refused');
    // An unread or partly read body would otherwise have to be drained to reuse the connection.
    replyFailure(response, code, message, code === 413);
  }

  // The API server sends every request to the same URL (its ?timeout= is the webhook's timeoutSeconds), so the
  // budget is worked out again only when the URL changes: parsing the query took ~4 us a request.
  let lastUrl: string | undefined;
  let lastBudget = budgetMs;
  const budgetFor = (url: string | undefined): number => {
    if (url !== lastUrl) {
      lastBudget = requestBudgetMs(budgetMs, parseDuration(timeoutParameter(url)));
      lastUrl = url;
    }
    return lastBudget;
  };
  const endOfTurn = turnGate();
  const reviews = new ReviewMemo(() => metrics.reviewsRemembered.inc());

  return async (incoming, response, arrival) => {
    const contentType = incoming.headers['content-type'];
    if (!isJson(contentType))
      return refuse(
        response,
        415,
        contentType === undefined
          ? 'Content-Type is missing: send application/json'
          : `Content-Type must be application/json, not ${JSON.stringify(contentType)}`,
      );
    const body =
      declaredTooLarge(incoming.headers['content-length'], maxBodyBytes) ??
      (await readIncoming(incoming, maxBodyBytes));
    // Answered meanwhile: a slow body whose slot went to another request (overload.ts).
    if (response.headersSent) return;
    if (!body.ok) return refuse(response, body.code, body.message);
    await endOfTurn();
    const decoded = reviews.decode(body.bytes);
    if (!decoded.ok) return refuse(response, 400, decoded.message);

    const { request } = decoded.review;
    const dryRun = request.dryRun === true;
    const budget = budgetFor(incoming.url);
    const skip = (): string | undefined => {
      const spent = performance.now() - arrival;
      if (spent + cost.estimateMs() <= budget) return undefined;
      metrics.budgetExceeded.inc({ stage: 'before_decision' });
      return skipWarning(spent, budget);
    };
    const timedDecide: PodDecider = (podRequest) => {
      const start = performance.now();
      try {
        return decide(podRequest);
      } finally {
        cost.record(performance.now() - start);
      }
    };

    await nextStage();
    let handled: Handled;
    try {
      handled = handleAdmission(request, {
        decide: timedDecide,
        // Without a deferrer the budget can only skip; decided late, a late answer is counted as stage="decision".
        ...((defer || whenLate === 'skip') && { skip }),
        ...(defer && { defer }),
        ...(decideClaim && { decideClaim }),
        ...(admitted && { admitted }),
      });
    } catch (error) {
      // A bug in deciding must not block Pod creation (a 500 under failurePolicy: Fail would):
      // the safe answer is the budget's, admitted unchanged and said so.
      count('error', dryRun, arrival);
      log.error({ err: error, uid: request.uid, ...describe(request) }, 'deciding failed');
      const warning = `topogate could not decide on this Pod and admitted it unchanged: ${(error as Error).message}`;
      return replyJson(response, 200, encodeReview(decoded.review, allowed({ warnings: [warning] })));
    }
    if (handled.decision !== undefined && !dryRun) countPolicies(metrics, handled.decision);

    await nextStage();
    const answer = encodeReview(decoded.review, handled.answer);
    await nextStage();
    const elapsedMs = count(handled.outcome, dryRun, arrival);
    if (handled.decision !== undefined && elapsedMs > budget) metrics.budgetExceeded.inc({ stage: 'decision' });
    if (log.isLevelEnabled('debug')) {
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
    replyJson(response, 200, answer);
  };

  function count(outcome: RequestOutcome, dryRun: boolean, arrival: number): number {
    const elapsedMs = performance.now() - arrival;
    const series = metrics.answered[outcome][dryRun ? 1 : 0];
    series.requests.inc();
    series.latency.observe(elapsedMs / 1000);
    return elapsedMs;
  }
}

function countPolicies(metrics: WebhookMetrics, decision: Decision): void {
  const audited = decision.audited ?? [];
  for (const policy of decision.matched) {
    const audit = audited.some((outcome) => outcome.policy === policy);
    metrics.matched.of(policy, audit ? 'Audit' : 'Enforce').count++;
  }
  for (const policy of decision.applied) metrics.applied.of(policy, 'Enforce').count++;
  for (const outcome of audited) if (outcome.wouldChange) metrics.applied.of(outcome.policy, 'Audit').count++;
}

/** Which object a request is about, for logs: never its body. */
function describe(request: AdmissionRequest): Record<string, unknown> {
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

/** The API server's `?timeout=` (its own deadline for the call, a Go duration), or "". */
function timeoutParameter(url: string | undefined): string {
  const query = url?.indexOf('?') ?? -1;
  return query === -1 ? '' : (new URLSearchParams(url!.slice(query + 1)).get('timeout') ?? '');
}
