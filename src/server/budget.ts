// The per-request latency budget. The decision is synchronous and cannot be
// stopped once started, so the choice is made before it: when the time
// already spent plus what a decision usually takes would overrun the budget,
// the request is admitted unchanged at once rather than answered late.

/** Weight of the newest decision in the running estimate. */
const smoothing = 0.1;

export interface DecisionCost {
  /** The running estimate of a decision's duration, in ms. */
  estimateMs(): number;
  record(ms: number): void;
}

/**
 * An estimate over the budget would skip every request, and a skipped request
 * records nothing, so one slow decision (a GC pause, a cold start) would stop
 * all decisions for good. So after `forgetAfterMs` with no decision the next
 * request is decided whatever the estimate, and its time replaces the estimate
 * when lower: a latched estimate recovers at once, while the first decision
 * after an idle spell (cold caches) does not make a low estimate pessimistic.
 */
export function createDecisionCost(forgetAfterMs = 1000, now: () => number = () => performance.now()): DecisionCost {
  let estimate = 0;
  let recordedAt = Number.NEGATIVE_INFINITY;
  const quiet = () => now() - recordedAt > forgetAfterMs;
  return {
    estimateMs: () => (quiet() ? 0 : estimate),
    record(ms) {
      if (estimate === 0) estimate = ms;
      else estimate = quiet() ? Math.min(estimate, ms) : estimate + smoothing * (ms - estimate);
      recordedAt = now();
    },
  };
}

/** The budget for one request: --budget-ms, or less when the API server's ?timeout= is shorter. */
export function requestBudgetMs(budgetMs: number, timeoutMs: number | undefined): number {
  return timeoutMs === undefined ? budgetMs : Math.min(budgetMs, timeoutMs);
}

export function skipWarning(spentMs: number, budgetMs: number): string {
  return `topogate skipped placement: ${spentMs.toFixed(1)} ms of its ${budgetMs} ms budget was spent before deciding; the Pod is admitted unchanged`;
}
