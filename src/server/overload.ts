// Bounds what /mutate holds at once. Each request in flight may buffer a body
// of up to the body limit, so a cap on their number caps memory. Beyond it a
// request is refused at once with 429, before a byte of its body is read: the
// API server then applies the webhook's failurePolicy (Ignore admits the Pod
// unchanged, as the budget's safe answer would). No Retry-After is sent, so
// the API server's client does not retry into the overload.
// Unless a slot is held by a body arriving slower than a minimum rate: then
// that request is answered 408 and its slot goes to the new one. Slow senders
// that reconnect after each 408 held every slot for the 30 s request timeout
// (263 of 264 real requests got 429 over 75 s); now they lose their slots to
// real requests, and only a sender paying the minimum rate on all of them
// keeps them. The API server writes a body at once, so it is never the slow one.
// Requests within the cap that have waited too long are shed by queue age in
// mutate.ts (the budget check made before deciding).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, type Registry } from 'prom-client';
import { replyFailure } from './reply.ts';

/** 128 bodies of a real Pod (10–50 KB) are a few MB; even at the 3 MiB body limit the cap keeps them under 400 MB. */
export const defaultMaxInFlight = 128;

export interface SlowBodyLimits {
  /** A body younger than this keeps its slot whatever its rate. */
  readonly graceMs: number;
  /** Below this rate over its whole age, an unfinished body gives its slot to a new request when none is free. */
  readonly minBytesPerSecond: number;
  /** How long the 408 may take to leave before the slow request's connection is destroyed. */
  readonly lingerMs: number;
}

/** 1 s, and 64 KiB/s: holding all 128 slots costs a sender 8 MiB/s, and a real body is written at once. */
export const defaultSlowBody: SlowBodyLimits = { graceMs: 1_000, minBytesPerSecond: 64 * 1024, lingerMs: 1_000 };

export interface InFlightLimitOptions {
  readonly max: number;
  readonly registry: Registry;
  readonly slowBody?: SlowBodyLimits;
}

export interface InFlightLimit {
  /** Takes a slot, or answers 429 and says -1. A slot taken must be given back with `leave`. */
  enter(request: IncomingMessage, response: ServerResponse): number;
  /** Gives the slot back, unless it was given to another request meanwhile (a slow body's). */
  leave(slot: number, response: ServerResponse): void;
}

/** One slot; reused, so that a request costs no allocation here. */
interface Slot {
  request: IncomingMessage | undefined;
  response: ServerResponse | undefined;
  since: number;
  /** The socket's decrypted bytes read when the request took the slot. */
  bytesAtStart: number;
}

export function limitInFlight({ max, registry, slowBody = defaultSlowBody }: InFlightLimitOptions): InFlightLimit {
  return new InFlightSlots(max, registry, slowBody);
}

class InFlightSlots implements InFlightLimit {
  readonly #slots: Slot[];
  /** The free slots' indexes. */
  readonly #free: number[];
  readonly #slowBody: SlowBodyLimits;
  readonly #refused: Counter;
  readonly #evicted: Counter;
  readonly #message: string;

  constructor(max: number, registry: Registry, slowBody: SlowBodyLimits) {
    this.#slots = Array.from({ length: max }, () => ({
      request: undefined,
      response: undefined,
      since: 0,
      bytesAtStart: 0,
    }));
    const free = (this.#free = Array.from({ length: max }, (_, index) => max - 1 - index));
    this.#slowBody = slowBody;
    new Gauge({
      name: 'topogate_in_flight_requests',
      help: 'AdmissionReviews being read or decided right now.',
      registers: [registry],
      collect() {
        this.set(max - free.length);
      },
    });
    this.#refused = new Counter({
      name: 'topogate_in_flight_refused_total',
      help: `Requests to /mutate refused with 429 because ${max} were already in flight.`,
      registers: [registry],
    });
    this.#evicted = new Counter({
      name: 'topogate_slow_bodies_evicted_total',
      help: `Requests answered 408 while the cap was full because their body arrived slower than ${slowBody.minBytesPerSecond} bytes/s; their slots went to new requests.`,
      registers: [registry],
    });
    this.#message = `topogate is overloaded: ${max} AdmissionReviews are already in flight; the API server applies the webhook's failurePolicy`;
  }

  enter(request: IncomingMessage, response: ServerResponse): number {
    const now = performance.now();
    const index = this.#free.pop();
    if (index !== undefined) return this.#take(index, request, response, now);
    const slow = this.#slowest(now);
    if (slow !== -1) {
      this.#evict(slow, now);
      return this.#take(slow, request, response, now);
    }
    this.#refused.inc();
    // The body is left unread, so the connection cannot carry another request.
    replyFailure(response, 429, this.#message, true);
    return -1;
  }

  leave(index: number, response: ServerResponse): void {
    const slot = this.#slots[index]!;
    if (slot.response !== response) return;
    slot.request = undefined;
    slot.response = undefined;
    this.#free.push(index);
  }

  /** The slot whose unfinished body arrives slowest, if one is below the minimum rate past its grace. */
  #slowest(now: number): number {
    const { graceMs, minBytesPerSecond } = this.#slowBody;
    let found = -1;
    let lowest = minBytesPerSecond;
    for (const [index, slot] of this.#slots.entries()) {
      const { request, since, bytesAtStart } = slot;
      if (request === undefined || request.complete || now - since < graceMs) continue;
      const rate = ((request.socket.bytesRead - bytesAtStart) * 1000) / (now - since);
      if (rate < lowest) {
        lowest = rate;
        found = index;
      }
    }
    return found;
  }

  #evict(index: number, now: number): void {
    const { request, response, since, bytesAtStart } = this.#slots[index]!;
    const rate = Math.round(((request!.socket.bytesRead - bytesAtStart) * 1000) / (now - since));
    this.#evicted.inc();
    replyFailure(
      response!,
      408,
      `the body arrived at ${rate} bytes/s, slower than the ${this.#slowBody.minBytesPerSecond} bytes/s a request must keep while every one of the ${this.#slots.length} slots is taken`,
      true,
    );
    setTimeout(() => request!.destroy(), this.#slowBody.lingerMs).unref();
  }

  #take(index: number, request: IncomingMessage, response: ServerResponse, now: number): number {
    const slot = this.#slots[index]!;
    slot.request = request;
    slot.response = response;
    slot.since = now;
    slot.bytesAtStart = request.socket.bytesRead;
    return index;
  }
}
