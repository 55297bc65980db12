// POST /mutate: bytes in, AdmissionReview out, on node:http's request and
// response themselves (no Request/Response objects: they cost more per request
// than the rest of the HTTP layer). Every refusal names what is wrong; every
// AdmissionReview gets an answer in its own version.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeReview } from '../admission/encode.ts';
import { ReviewMemo } from '../admission/reviewMemo.ts';
import { declaredTooLarge, isJson, readIncoming } from './body.ts';
import { decisionStage } from './mutateDecide.ts';
import type { MutateOptions } from './mutateOptions.ts';
import { countAnswered, countPolicies, logAnswered } from './mutateRecord.ts';
import { replyFailure, replyJson } from './reply.ts';
import { nextStage, turnGate } from './turn.ts';
import { budgetByUrl } from './urlBudget.ts';

export type { MutateOptions } from './mutateOptions.ts';

/** Answers one request that arrived at `arrival` (performance.now()'s clock); throws only on a bug of its own. */
export type MutateHandler = (request: IncomingMessage, response: ServerResponse, arrival: number) => Promise<void>;

export function mutateHandler(options: MutateOptions): MutateHandler {
  const { maxBodyBytes, metrics, log } = options;
  const budgetFor = budgetByUrl(options.budgetMs);
  const endOfTurn = turnGate();
  const reviews = new ReviewMemo(() => metrics.reviewsRemembered.inc());
  const decideStage = decisionStage(options);
  const refuse = (response: ServerResponse, code: 400 | 413 | 415, message: string): void => {
    metrics.rejected.inc({ code });
    log.debug({ code, message }, 'request refused');
    // An unread or partly read body would otherwise have to be drained to reuse the connection.
    replyFailure(response, code, message, code === 413);
  };

  return async (incoming, response, arrival) => {
    const contentType = incoming.headers['content-type'];
    if (!isJson(contentType)) return refuse(response, 415, contentTypeProblem(contentType));
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
    await nextStage();
    const handled = decideStage(decoded.review, response, arrival, budget, dryRun);
    if (handled === undefined) return;
    if (handled.decision !== undefined && !dryRun) countPolicies(metrics, handled.decision);

    await nextStage();
    const answer = encodeReview(decoded.review, handled.answer);
    await nextStage();
    const elapsedMs = countAnswered(metrics, handled.outcome, dryRun, arrival);
    if (handled.decision !== undefined && elapsedMs > budget) metrics.budgetExceeded.inc({ stage: 'decision' });
    if (log.isLevelEnabled('debug')) logAnswered(log, request, dryRun, handled, elapsedMs);
    replyJson(response, 200, answer);
  };
}

function contentTypeProblem(contentType: string | undefined): string {
  return contentType === undefined
    ? 'Content-Type is missing: send application/json'
    : `Content-Type must be application/json, not ${JSON.stringify(contentType)}`;
}
