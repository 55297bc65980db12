// One port for all: probe connections (echoed, frame by frame), bounded
// throughput transfers (bulk.ts) and HTTP (/healthz, /metrics, /summary), told
// apart by their first byte, so that the DaemonSet exposes a single container
// port named `probe`.
//
// The embedded HTTP server never listens itself, so Node's own header and
// request timeouts never run for it: every phase of a connection has a
// deadline of its own here, and the connections are capped, in total and per
// source address, so that idle or slow peers cannot hold the port.

import { createServer as createHttpServer, type RequestListener, type Server as HttpServer } from 'node:http';
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

/** The deadline of each connection's current phase: its first byte, the next request's headers, a transfer. */
class Deadlines {
  readonly #timers = new WeakMap<Socket, NodeJS.Timeout>();

  /** Destroys the socket in `ms`, unless armed again or cleared before. */
  arm(socket: Socket, ms: number): void {
    clearTimeout(this.#timers.get(socket));
    this.#timers.set(
      socket,
      setTimeout(() => socket.destroy(), ms),
    );
  }

  clear(socket: Socket): void {
    clearTimeout(this.#timers.get(socket));
  }
}

/** What the port's connections share: deadlines, the open connections and how many each source holds. */
interface Port {
  readonly limits: ListenerLimits;
  readonly deadlines: Deadlines;
  readonly connections: Set<Socket>;
  readonly perSource: Map<string, number>;
  readonly httpServer: HttpServer;
}

export async function listen(
  host: string,
  port: number,
  http: RequestListener,
  limits: ListenerLimits = DEFAULT_LISTENER_LIMITS,
): Promise<Listener> {
  const deadlines = new Deadlines();
  const connections = new Set<Socket>();
  const httpServer = embeddedHttp(http, deadlines, limits);
  const state: Port = { limits, deadlines, connections, perSource: new Map(), httpServer };
  const server: Server = createServer((socket) => accept(state, socket));
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
/**
 * The HTTP server the port hands HTTP connections to, which never listens itself: GET only, and after each
 * answer the next request's headers have requestMs to come.
 */
function embeddedHttp(http: RequestListener, deadlines: Deadlines, limits: ListenerLimits): HttpServer {
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
    deadlines.clear(socket);
    response.once('finish', () => deadlines.arm(socket, limits.requestMs));
  });
  return httpServer;
}

/** A new connection: refused past its source's cap, else counted until it closes and told apart by its first byte. */
function accept(port: Port, socket: Socket): void {
  const { limits, deadlines, connections, perSource } = port;
  const source = socket.remoteAddress ?? '';
  const held = (perSource.get(source) ?? 0) + 1;
  if (held > limits.maxPerSource) return void socket.destroy();
  perSource.set(source, held);
  connections.add(socket);
  socket.once('close', () => {
    connections.delete(socket);
    deadlines.clear(socket);
    const left = perSource.get(source)! - 1;
    if (left === 0) perSource.delete(source);
    else perSource.set(source, left);
  });
  socket.setNoDelay(true);
  socket.on('error', () => socket.destroy());
  deadlines.arm(socket, limits.firstByteMs);
  socket.once('data', (first: Buffer) => dispatch(port, socket, first));
}

/** A probe connection is echoed, a transfer sunk, anything else is HTTP. */
function dispatch({ limits, deadlines, httpServer }: Port, socket: Socket, first: Buffer): void {
  if (first[0] === FRAME_MARK) {
    deadlines.clear(socket);
    socket.setTimeout(limits.probeIdleMs, () => socket.destroy());
    echo(socket, first);
  } else if (first[0] === BULK_MARK) {
    deadlines.arm(socket, limits.bulkMs);
    sink(socket, first);
  } else {
    deadlines.arm(socket, limits.requestMs);
    socket.unshift(first);
    httpServer.emit('connection', socket);
  }
}

function echo(socket: Socket, first: Buffer): void {
  const answer = (chunk: Buffer) => {
    if (socket.writableLength > MAX_UNANSWERED_BYTES) socket.destroy();
    else socket.write(chunk);
  };
  answer(first);
  socket.on('data', answer);
}
