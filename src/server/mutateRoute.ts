// POST /mutate as a plain node:http request listener, in the order the Hono
// middlewares ran: the client certificate (serve --client-ca), the in-flight
// cap, the arrival time, then the handler. A bug of the handler's own answers
// 500, as Hono's error handler did; the in-flight slot is given back once the
// answer is written, unless a slow body lost it to another request before.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { arrivalTime } from './arrival.ts';
import type { ClientCertificateCheck } from './clientAuth.ts';
import type { LoopLag } from './lag.ts';
import type { MutateHandler } from './mutate.ts';
import type { InFlightLimit } from './overload.ts';
import { replyFailure } from './reply.ts';

export interface MutateRouteOptions {
  readonly handle: MutateHandler;
  readonly limit: InFlightLimit;
  readonly log: Logger;
  readonly lag?: LoopLag;
  readonly clientCertificate?: ClientCertificateCheck;
}

export type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

export function mutateRoute({ handle, limit, log, lag, clientCertificate }: MutateRouteOptions): RequestListener {
  const failed = (request: IncomingMessage, response: ServerResponse) => (error: unknown) => {
    log.error({ err: error, method: request.method, path: request.url }, 'request failed');
    if (!response.headersSent) replyFailure(response, 500, `internal error: ${(error as Error).message}`);
  };
  return (request, response) => {
    if (clientCertificate && !clientCertificate(request.socket as Partial<TLSSocket>, response)) return;
    const slot = limit.enter(request, response);
    if (slot === -1) return;
    handle(request, response, arrivalTime(lag))
      .catch(failed(request, response))
      .finally(() => limit.leave(slot, response));
  };
}

/** Whether node:http's request is `POST /mutate` as the API server sends it; any other spelling goes to Hono. */
export function isMutatePost(request: IncomingMessage): boolean {
  const url = request.url ?? '';
  return request.method === 'POST' && url.startsWith('/mutate') && (url.length === 7 || url.charCodeAt(7) === 63);
}
