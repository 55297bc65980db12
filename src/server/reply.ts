// Writing an answer on node:http's response in one step: the status and its
// headers in one writeHead, the body in one end(), so the headers and the body
// leave in one TLS record and nothing is buffered or copied in between.

import type { ServerResponse } from 'node:http';
import { failure } from './status.ts';

/** A JSON body with its Content-Type and Content-Length; `close` ends the connection after it. */
export function replyJson(response: ServerResponse, code: number, body: string, close = false): void {
  response.writeHead(
    code,
    close
      ? ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), 'Connection', 'close']
      : ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body))],
  );
  response.end(body);
}

/** A meta/v1 Status refusal (status.ts). */
export function replyFailure(response: ServerResponse, code: number, message: string, close = false): void {
  replyJson(response, code, JSON.stringify(failure(code, message)), close);
}
