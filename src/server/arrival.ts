// When a request arrived: the start of its latency budget. Node emits the
// request once its headers are parsed; time spent queued in the event loop
// before that is not visible to JavaScript, so the loop's recent lag (lag.ts)
// stands in for it.

import type { MiddlewareHandler } from 'hono';
import type { Readable } from 'node:stream';
import type { LoopLag } from './lag.ts';

export interface WebhookEnv {
  /** Set by @hono/node-server; absent when the app is driven by app.request(). */
  Bindings: { incoming?: Readable };
  Variables: { arrival: number };
}

export function markArrival(lag?: LoopLag): MiddlewareHandler<WebhookEnv> {
  return async (c, next) => {
    c.set('arrival', performance.now() - (lag?.recentMs() ?? 0));
    await next();
  };
}
