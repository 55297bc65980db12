// Bounds what /mutate holds at once. Each request in flight may buffer a body
// of up to the body limit, so a cap on their number caps memory. Beyond it a
// request is refused at once with 429, before a byte of its body is read: the
// API server then applies the webhook's failurePolicy (Ignore admits the Pod
// unchanged, as the budget's safe answer would). No Retry-After is sent, so
// the API server's client does not retry into the overload.
// Requests within the cap that have waited too long are shed by queue age in
// mutate.ts (the budget check made before deciding).

import type { MiddlewareHandler } from 'hono';
import { Counter, Gauge, type Registry } from 'prom-client';
import { failure } from './status.ts';

/** 128 bodies of a real Pod (10–50 KB) are a few MB; even at the 3 MiB body limit the cap keeps them under 400 MB. */
export const defaultMaxInFlight = 128;

export interface InFlightLimitOptions {
  readonly max: number;
  readonly registry: Registry;
}

export function limitInFlight({ max, registry }: InFlightLimitOptions): MiddlewareHandler {
  let inFlight = 0;
  new Gauge({
    name: 'topogate_in_flight_requests',
    help: 'AdmissionReviews being read or decided right now.',
    registers: [registry],
    collect() {
      this.set(inFlight);
    },
  });
  const refused = new Counter({
    name: 'topogate_in_flight_refused_total',
    help: `Requests to /mutate refused with 429 because ${max} were already in flight.`,
    registers: [registry],
  });

  return async (c, next) => {
    if (inFlight >= max) {
      refused.inc();
      // The body is left unread, so the connection cannot carry another request.
      return c.json(
        failure(
          429,
          `topogate is overloaded: ${max} AdmissionReviews are already in flight; the API server applies the webhook's failurePolicy`,
        ),
        429,
        { Connection: 'close' },
      );
    }
    inFlight++;
    try {
      await next();
    } finally {
      inFlight--;
    }
  };
}
