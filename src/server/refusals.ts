// Requests Node's HTTP parser refuses before any route sees them (malformed,
// smuggling attempts, headers too large, too slow, an unmet Expect): answered
// with a meta/v1 Status naming what is wrong, like every other refusal, then
// the connection is dropped, since what follows on it cannot be trusted.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { ConnectionTracker } from './connections.ts';
import { replyFailure } from './reply.ts';
import { failure } from './status.ts';

interface Refusal {
  readonly code: number;
  readonly phrase: string;
  readonly message: string;
}

function refusalFor(error: NodeJS.ErrnoException): Refusal {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 431,
        phrase: 'Request Header Fields Too Large',
        message: 'the request headers are larger than the server accepts',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 408, phrase: 'Request Timeout', message: 'the request did not arrive in time' };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return {
        code: 400,
        phrase: 'Bad Request',
        message: 'the request has both Content-Length and Transfer-Encoding, or Content-Length twice',
      };
    default:
      return {
        code: 400,
        phrase: 'Bad Request',
        message: `the request is not valid HTTP/1.1 (${error.code ?? 'parse error'})`,
      };
  }
}

export function statusResponse(code: number, phrase: string, message: string, withoutBody = false): string {
  const body = withoutBody ? '' : JSON.stringify(failure(code, message));
  return [
    `HTTP/1.1 ${code} ${phrase}`,
    ...(withoutBody ? [] : ['Content-Type: application/json']),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Whether the refused bytes are a request that can take a body in its answer. No packet: a timeout, of a request
 * whose line was read. An invalid method in a packet that starts with a valid one: bytes after a whole request (a
 * client's unframed body), no request at all, while the client waits on the answer to the request before, which
 * may be a HEAD. A response to HEAD has no body, whatever its Content-Length says. A client reads a body it does
 * not expect as the next response. None of that can be on a connection that has carried no request yet.
 */
function answersWithBody(error: NodeJS.ErrnoException, carriedRequests: boolean): boolean {
  const packet = (error as { rawPacket?: Buffer }).rawPacket;
  if (packet === undefined || !carriedRequests) return true;
  const start = packet.subarray(0, 16).toString('latin1');
  if (start.startsWith('HEAD ')) return false;
  // Headers too large for one packet: the packet is their middle, and the request the one the client waits on.
  if (error.code === 'HPE_HEADER_OVERFLOW') return true;
  return /^[A-Z]+ /.test(start) && error.code !== 'HPE_INVALID_METHOD';
}

/** The server's `clientError` listener. */
export function answerClientError(connections: ConnectionTracker, log: Logger) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    log.debug({ err: error, code: error.code }, 'malformed request');
    // Nothing can reach a peer that reset the connection or never finished the handshake.
    if (error.code === 'ECONNRESET' || error.code === 'ERR_TLS_HANDSHAKE_TIMEOUT' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { code, phrase, message } = refusalFor(error);
    const withBody = answersWithBody(error, connections.carriedRequests(socket));
    connections.refuse(socket, statusResponse(code, phrase, message, !withBody));
  };
}

/**
 * A request without Host, refused as Node would (HTTP/1.1 requires it; Node asks it of HTTP/1.0 too) but with a
 * Status body: the server sets `requireHostHeader: false` only so that this answer, not Node's empty one, is sent.
 */
export function refuseWithoutHost(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.headers.host !== undefined) return false;
  replyFailure(response, 400, `the request has no Host header (HTTP/${request.httpVersion} requires one here)`, true);
  return true;
}

/** The server's `checkExpectation` listener: only `Expect: 100-continue` is understood. */
export function refuseExpectation(request: IncomingMessage, response: ServerResponse): void {
  const body = JSON.stringify(
    failure(417, `Expect: ${request.headers.expect ?? ''} is not supported; only 100-continue is`),
  );
  response.writeHead(417, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  response.end(body);
}
