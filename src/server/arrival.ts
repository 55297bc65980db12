// When a request arrived: the start of its latency budget. Node emits the
// request once its headers are parsed; time spent queued in the event loop
// before that is not visible to JavaScript.

import type { MiddlewareHandler } from 'hono';
import type { Readable } from 'node:stream';

export interface WebhookEnv {
  /** Set by @hono/node-server; absent when the app is driven by app.request(). */
  Bindings: { incoming?: Readable };
  Variables: { arrival: number };
}

export const markArrival: MiddlewareHandler<WebhookEnv> = async (c, next) => {
  c.set('arrival', performance.now());
  await next();
};
