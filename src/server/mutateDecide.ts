// POST /mutate's decision stage: a review decided within its budget (or skipped, deferred, decided late, as
// the options say), its time added to the running cost; a bug in deciding admits the Pod unchanged.

import type { ServerResponse } from 'node:http';
import { encodeReview } from '../admission/encode.ts';
import { allowed } from '../admission/answer.ts';
import { handleAdmission, type Handled, type PodDecider } from '../admission/handler.ts';
import type { AdmissionReviewRequest } from '../admission/review.ts';
import { skipWarning } from './budget.ts';
import type { MutateOptions } from './mutateOptions.ts';
import { countAnswered, describe } from './mutateRecord.ts';
import { replyJson } from './reply.ts';

/** Decides a review; answers undefined when deciding failed and the reply is sent already. */
export type DecisionStage = (
  review: AdmissionReviewRequest,
  response: ServerResponse,
  arrival: number,
  budget: number,
  dryRun: boolean,
) => Handled | undefined;

export function decisionStage({
  decide,
  defer,
  whenLate = 'skip',
  decideClaim,
  admitted,
  cost,
  metrics,
  log,
}: MutateOptions): DecisionStage {
  // Without a deferrer the budget can only skip; decided late, a late answer is counted as stage="decision".
  const maySkip = defer !== undefined || whenLate === 'skip';
  return (review, response, arrival, budget, dryRun) => {
    const { request } = review;
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
    try {
      return handleAdmission(request, {
        decide: timedDecide,
        ...(maySkip && { skip }),
        ...(defer && { defer }),
        ...(decideClaim && { decideClaim }),
        ...(admitted && { admitted }),
      });
    } catch (error) {
      // A bug in deciding must not block Pod creation (a 500 under failurePolicy: Fail would):
      // the safe answer is the budget's, admitted unchanged and said so.
      countAnswered(metrics, 'error', dryRun, arrival);
      log.error({ err: error, uid: request.uid, ...describe(request) }, 'deciding failed');
      const warning = `topogate could not decide on this Pod and admitted it unchanged: ${(error as Error).message}`;
      replyJson(response, 200, encodeReview(review, allowed({ warnings: [warning] })));
      return undefined;
    }
  };
}
