// Every route but POST /mutate, as a Hono app: /healthz, /readyz, /metrics,
// 404 and 405. POST /mutate is answered before Hono by a plain node:http
// listener (listener.ts); a spelling of its path that only Hono's URL parsing
// makes /mutate (percent-encoded, absolute-form, dot segments) is handed back
// to that listener, so every POST to /mutate meets the same code.

import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ClientCertificateCheck } from './clientAuth.ts';
import type { RequestListener } from './mutateRoute.ts';
import { checkReadiness, readinessText, type ReadinessChecks } from './readiness.ts';
import { failure } from './status.ts';

/** Set by @hono/node-server. */
export interface WebhookEnv {
  Bindings: { incoming: IncomingMessage; outgoing: ServerResponse };
}

export interface AppOptions {
  /** POST /mutate (mutateRoute.ts). */
  readonly mutate: RequestListener;
  readonly checks: ReadinessChecks;
  readonly registry: Registry;
  readonly log: Logger;
  /** Given, /mutate by any other method also needs a verified client certificate (serve --client-ca). */
  readonly clientCertificate?: ClientCertificateCheck;
}

export function createApp({ mutate, checks, registry, log, clientCertificate }: AppOptions): Hono<WebhookEnv> {
  const app = new Hono<WebhookEnv>();
  app.post('/mutate', (c) => {
    mutate(c.env.incoming, c.env.outgoing);
    return RESPONSE_ALREADY_SENT;
  });
  if (clientCertificate)
    app.use('/mutate', async (c, next) =>
      clientCertificate(c.env.incoming.socket as Partial<TLSSocket>, c.env.outgoing) ? next() : RESPONSE_ALREADY_SENT,
    );
  app.all('/mutate', (c) =>
    c.json(failure(405, `${c.req.method} is not allowed: POST an AdmissionReview to /mutate`), 405, { Allow: 'POST' }),
  );
  app.get('/healthz', (c) => c.text('ok\n'));
  app.get('/readyz', (c) => {
    const report = checkReadiness(checks);
    const code = report.ready ? 200 : 503;
    return c.req.header('accept')?.includes('application/json')
      ? c.json(report, code)
      : c.text(readinessText(report), code);
  });
  app.get('/metrics', async (c) => c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType }));
  app.notFound((c) =>
    c.json(
      failure(
        404,
        `no route for ${c.req.method} ${c.req.path}: the webhook serves POST /mutate, GET /healthz, /readyz and /metrics`,
      ),
      404,
    ),
  );
  app.onError((error, c) => {
    log.error({ err: error, method: c.req.method, path: c.req.path }, 'request failed');
    return c.json(failure(500, `internal error: ${error.message}`), 500);
  });
  return app;
}
