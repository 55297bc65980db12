// The webhook's routes, as a Hono app: independent of the transport, so the
// same app serves HTTPS in production and anything else a benchmark needs.

import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { markArrival, type WebhookEnv } from './arrival.ts';
import type { LoopLag } from './lag.ts';
import { requireClientCertificate } from './clientAuth.ts';
import { mutateHandler, type MutateOptions } from './mutate.ts';
import { defaultMaxInFlight, limitInFlight } from './overload.ts';
import { checkReadiness, readinessText, type ReadinessChecks } from './readiness.ts';
import { failure } from './status.ts';

export interface AppOptions {
  readonly mutate: Omit<MutateOptions, 'log'>;
  readonly checks: ReadinessChecks;
  readonly registry: Registry;
  readonly log: Logger;
  /** AdmissionReviews held at once; more are refused with 429 (default 128). */
  readonly maxInFlight?: number;
  /** The event loop's lag, counted into each request's budget (none: the budget starts at the headers). */
  readonly lag?: LoopLag;
  /** /mutate only for clients whose certificate the TLS handshake verified (serve --client-ca). */
  readonly requireClientCertificate?: boolean;
}

export function createApp({
  mutate,
  checks,
  registry,
  log,
  maxInFlight = defaultMaxInFlight,
  requireClientCertificate: clientCertificateRequired = false,
  lag,
}: AppOptions): Hono<WebhookEnv> {
  const app = new Hono<WebhookEnv>();
  if (clientCertificateRequired) app.use('/mutate', requireClientCertificate({ registry, log }));
  app.post(
    '/mutate',
    limitInFlight({ max: maxInFlight, registry }),
    markArrival(lag),
    mutateHandler({ ...mutate, log }),
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
