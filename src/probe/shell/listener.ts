// One port for all: probe connections (echoed, frame by frame), bounded
// throughput transfers (bulk.ts) and HTTP (/healthz, /metrics, /summary), told
// apart by their first byte, so that the DaemonSet exposes a single container
// port named `probe`.
//
// The embedded HTTP server never listens itself, so Node's own header and
// request timeouts never run for it: every phase of a connection has a
// deadline of its own here, and the connections are capped, in total and per
// source address, so that idle or slow peers cannot hold the port.

import { createServer as createHttpServer, type RequestListener } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { BULK_MARK, sink } from './bulk.ts';
import { FRAME_MARK } from './frame.ts';

/** A probe connection that sends more than this without reading its answers is not a prober. */
const MAX_UNANSWERED_BYTES = 64 * 1024;

export interface ListenerLimits {
  /** A connection that sends nothing for this long after it opens is closed. */
  readonly firstByteMs: number;
  /** An HTTP request's headers must have come within this, from the connection's first byte or the last answer. */
  readonly requestMs: number;
  /** A probe connection idle this long is closed (the prober closes its own after half of it). */
  readonly probeIdleMs: number;
  /** A throughput transfer must be over within this (senders cut theirs after 30 s). */
  readonly bulkMs: number;
  readonly maxConnections: number;
  /** Per source address: an honest peer holds one probe connection, one gather and one transfer at most. */
  readonly maxPerSource: number;
}

export const DEFAULT_LISTENER_LIMITS: ListenerLimits = {
  firstByteMs: 10_000,
  requestMs: 10_000,
  probeIdleMs: 120_000,
  bulkMs: 60_000,
  // Each prober keeps at most 128 connections, spread over all its peers: an agent holds ~128 inbound at any size.
  maxConnections: 2048,
  maxPerSource: 64,
};

export interface Listener {
  readonly port: number;
  close(): Promise<void>;
}

export async function listen(
  host: string,
  port: number,
  http: RequestListener,
  limits: ListenerLimits = DEFAULT_LISTENER_LIMITS,
): Promise<Listener> {
  // The deadline of each connection's current phase: its first byte, the next request's headers, a transfer.
  const deadlines = new WeakMap<Socket, NodeJS.Timeout>();
  const arm = (socket: Socket, ms: number) => {
    clearTimeout(deadlines.get(socket));
    deadlines.set(
      socket,
      setTimeout(() => socket.destroy(), ms),
    );
  };
  const httpServer = createHttpServer({ keepAliveTimeout: 5_000 }, (request, response) => {
    // A GET needs no body; a body would only be read and dropped, for as long as the sender liked.
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'content-type': 'text/plain', connection: 'close' }).end('GET only\n');
      return;
    }
    http(request, response);
  });
  httpServer.on('request', (request, response) => {
    const socket = request.socket;
    clearTimeout(deadlines.get(socket));
    response.once('finish', () => arm(socket, limits.requestMs));
  });
  const connections = new Set<Socket>();
  const perSource = new Map<string, number>();
  const server: Server = createServer((socket) => {
    const source = socket.remoteAddress ?? '';
    const held = (perSource.get(source) ?? 0) + 1;
    if (held > limits.maxPerSource) return void socket.destroy();
    perSource.set(source, held);
    connections.add(socket);
    socket.once('close', () => {
      connections.delete(socket);
      clearTimeout(deadlines.get(socket));
      const left = perSource.get(source)! - 1;
      if (left === 0) perSource.delete(source);
      else perSource.set(source, left);
    });
    socket.setNoDelay(true);
    socket.on('error', () => socket.destroy());
    arm(socket, limits.firstByteMs);
    socket.once('data', (first: Buffer) => {
      if (first[0] === FRAME_MARK) {
        clearTimeout(deadlines.get(socket));
        socket.setTimeout(limits.probeIdleMs, () => socket.destroy());
        echo(socket, first);
      } else if (first[0] === BULK_MARK) {
        arm(socket, limits.bulkMs);
        sink(socket, first);
      } else {
        arm(socket, limits.requestMs);
        socket.unshift(first);
        httpServer.emit('connection', socket);
      }
    });
  });
  server.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of connections) socket.destroy();
      }),
  };
}

function echo(socket: Socket, first: Buffer): void {
  const answer = (chunk: Buffer) => {
    if (socket.writableLength > MAX_UNANSWERED_BYTES) socket.destroy();
    else socket.write(chunk);
  };
  answer(first);
  socket.on('data', answer);
}
