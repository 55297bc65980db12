// Writing an answer on node:http's response in one step: the status and its
// headers in one writeHead, the body in one end(). The body goes as the text:
// Node prepends its header block to it and writes both at once. Writing the
// header block and a Buffer of the body instead (an extra copy of the body,
// and a writev of two chunks) measured 3-4 µs a request more, turns answered
// stage by stage (turn.ts; docs/benchmarks.md, "Eighth look").

import type { ServerResponse } from 'node:http';
import { failure } from './status.ts';

/** A JSON body with its Content-Type and Content-Length; `close` ends the connection after it. */
export function replyJson(response: ServerResponse, code: number, body: string, close = false): void {
  const length = String(Buffer.byteLength(body));
  response.writeHead(
    code,
    close
      ? ['Content-Type', 'application/json', 'Content-Length', length, 'Connection', 'close']
      : ['Content-Type', 'application/json', 'Content-Length', length],
  );
  response.end(body);
}

/** A meta/v1 Status refusal (status.ts). */
export function replyFailure(response: ServerResponse, code: number, message: string, close = false): void {
  replyJson(response, code, JSON.stringify(failure(code, message)), close);
}
