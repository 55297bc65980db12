// Writing an answer on node:http's response in one step: the status and its
// headers in one writeHead, the body in one end(). The body goes as bytes:
// given the text, Node prepends its header block to it and the TLS write then
// flattens and converts that rope, which measured slower than writing the
// header block and one Buffer of the body together.

import type { ServerResponse } from 'node:http';
import { failure } from './status.ts';

/** A JSON body with its Content-Type and Content-Length; `close` ends the connection after it. */
export function replyJson(response: ServerResponse, code: number, body: string, close = false): void {
  const bytes = Buffer.from(body);
  response.writeHead(
    code,
    close
      ? ['Content-Type', 'application/json', 'Content-Length', String(bytes.length), 'Connection', 'close']
      : ['Content-Type', 'application/json', 'Content-Length', String(bytes.length)],
  );
  response.end(bytes);
}

/** A meta/v1 Status refusal (status.ts). */
export function replyFailure(response: ServerResponse, code: number, message: string, close = false): void {
  replyJson(response, code, JSON.stringify(failure(code, message)), close);
}
