// Bounds what /mutate holds at once. Each request in flight may buffer a body
// of up to the body limit, so a cap on their number caps memory. Beyond it a
// request is refused at once with 429, before a byte of its body is read: the
// API server then applies the webhook's failurePolicy (Ignore admits the Pod
// unchanged, as the budget's safe answer would). No Retry-After is sent, so
// the API server's client does not retry into the overload.
// Requests within the cap that have waited too long are shed by queue age in
// mutate.ts (the budget check made before deciding).

import type { ServerResponse } from 'node:http';
import { Counter, Gauge, type Registry } from 'prom-client';
import { replyFailure } from './reply.ts';

/** 128 bodies of a real Pod (10–50 KB) are a few MB; even at the 3 MiB body limit the cap keeps them under 400 MB. */
export const defaultMaxInFlight = 128;

export interface InFlightLimitOptions {
  readonly max: number;
  readonly registry: Registry;
}

export interface InFlightLimit {
  /** Takes a slot, or answers 429 and says false. A slot taken must be given back with `leave`. */
  enter(response: ServerResponse): boolean;
  leave(): void;
}

export function limitInFlight({ max, registry }: InFlightLimitOptions): InFlightLimit {
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
  const message = `topogate is overloaded: ${max} AdmissionReviews are already in flight; the API server applies the webhook's failurePolicy`;

  return {
    enter(response) {
      if (inFlight < max) return (inFlight++, true);
      refused.inc();
      // The body is left unread, so the connection cannot carry another request.
      replyFailure(response, 429, message, true);
      return false;
    },
    leave() {
      inFlight--;
    },
  };
}
