// The budget for a request by its URL. The API server sends every request to the same URL (its ?timeout= is the
// webhook's timeoutSeconds), so the budget is worked out again only when the URL changes: parsing the query took
// ~4 us a request.

import { requestBudgetMs } from './budget.ts';
import { parseDuration } from './duration.ts';

/** --budget-ms, or less when the URL's `?timeout=` is shorter; remembers the last URL's answer. */
export function budgetByUrl(budgetMs: number): (url: string | undefined) => number {
  let lastUrl: string | undefined;
  let lastBudget = budgetMs;
  return (url) => {
    if (url !== lastUrl) {
      lastBudget = requestBudgetMs(budgetMs, parseDuration(timeoutParameter(url)));
      lastUrl = url;
    }
    return lastBudget;
  };
}

/** The API server's `?timeout=` (its own deadline for the call, a Go duration), or "". */
function timeoutParameter(url: string | undefined): string {
  const query = url?.indexOf('?') ?? -1;
  return query === -1 ? '' : (new URLSearchParams(url!.slice(query + 1)).get('timeout') ?? '');
}
