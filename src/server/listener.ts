// The webhook's node:http request listener: POST /mutate straight to its
// plain listener (mutateRoute.ts), everything else through Hono (app.ts).

import { getRequestListener } from '@hono/node-server';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createApp } from './app.ts';
import { requireClientCertificate } from './clientAuth.ts';
import type { LoopLag } from './lag.ts';
import { mutateHandler, type MutateOptions } from './mutate.ts';
import { isMutatePost, mutateRoute, type RequestListener } from './mutateRoute.ts';
import { defaultMaxInFlight, limitInFlight, type SlowBodyLimits } from './overload.ts';
import type { ReadinessChecks } from './readiness.ts';

export interface ListenerOptions {
  readonly mutate: Omit<MutateOptions, 'log'>;
  readonly checks: ReadinessChecks;
  readonly registry: Registry;
  readonly log: Logger;
  /** AdmissionReviews held at once; more are refused with 429 (default 128). */
  readonly maxInFlight?: number;
  /** When a slow body loses its slot to a new request (default: overload.ts's). */
  readonly slowBody?: SlowBodyLimits;
  /** The event loop's lag, counted into each request's budget (none: the budget starts at the headers). */
  readonly lag?: LoopLag;
  /** /mutate only for clients whose certificate the TLS handshake verified (serve --client-ca). */
  readonly requireClientCertificate?: boolean;
}

export function createRequestListener({
  mutate,
  checks,
  registry,
  log,
  maxInFlight = defaultMaxInFlight,
  slowBody,
  lag,
  requireClientCertificate: clientCertificateRequired = false,
}: ListenerOptions): RequestListener {
  const clientCertificate = clientCertificateRequired ? requireClientCertificate({ registry, log }) : undefined;
  const mutateListener = mutateRoute({
    handle: mutateHandler({ ...mutate, log }),
    limit: limitInFlight({ max: maxInFlight, registry, ...(slowBody && { slowBody }) }),
    log,
    ...(lag && { lag }),
    ...(clientCertificate && { clientCertificate }),
  });
  const app = createApp({
    mutate: mutateListener,
    checks,
    registry,
    log,
    ...(clientCertificate && { clientCertificate }),
  });
  const hono = getRequestListener(app.fetch);
  return (request, response) => {
    if (isMutatePost(request)) mutateListener(request, response);
    else void hono(request, response);
  };
}
