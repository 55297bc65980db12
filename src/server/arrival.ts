// When a request arrived: the start of its latency budget. Node emits the
// request once its headers are parsed; time spent queued in the event loop
// before that is not visible to JavaScript, so the loop's recent lag (lag.ts)
// stands in for it.

import type { LoopLag } from './lag.ts';

/** The arrival of a request seen now, on performance.now()'s clock. */
export function arrivalTime(lag?: LoopLag): number {
  return performance.now() - (lag?.recentMs() ?? 0);
}
