// When a request arrived: the start of its latency budget. Node emits the
// request once its headers are parsed; time spent queued in the event loop
// before that is not visible to JavaScript.

import type { MiddlewareHandler } from 'hono';

export interface WebhookEnv {
  Variables: { arrival: number };
}

export const markArrival: MiddlewareHandler<WebhookEnv> = async (c, next) => {
  c.set('arrival', performance.now());
  await next();
};
