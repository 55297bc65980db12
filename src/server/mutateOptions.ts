// What POST /mutate is given, per server, and the part of it the webhook server is given.

import type { Logger } from 'pino';
import type { AdmittedPod, ClaimDecider, PodDecider, PodDeferrer } from '../admission/handler.ts';
import type { DecisionCost } from './budget.ts';
import type { WebhookMetrics } from './metrics.ts';

/** How a review is decided: what the webhook server is given and hands to its /mutate route. */
export interface DecisionOptions {
  readonly decide: PodDecider;
  /** serve --defer overrun|always: the deferred answer instead of the budget's skip. */
  readonly defer?: PodDeferrer;
  /**
   * What a Pod that would overrun the budget and cannot be deferred gets: `skip` (when absent), admitted unchanged,
   * or `decide`, decided late (what serve asks for but under --defer never: the time is spent already, the decision
   * takes microseconds, and a Pod admitted without its placement is worse than one admitted a little late).
   */
  readonly whenLate?: 'skip' | 'decide';
  /** The dra rule on ResourceClaim and ResourceClaimTemplate CREATE. */
  readonly decideClaim?: ClaimDecider;
  /** Told of each Pod admitted for real (the live model counts it until its watch brings it). */
  readonly admitted?: AdmittedPod;
}

export interface MutateOptions extends DecisionOptions {
  readonly budgetMs: number;
  readonly maxBodyBytes: number;
  readonly cost: DecisionCost;
  readonly metrics: WebhookMetrics;
  readonly log: Logger;
}
