// Every TCP connection the webhook holds, so that none outlives the server's
// interest in it: a handshake that times out is destroyed at once (ending a
// TLS socket whose handshake never finished sends nothing, so it would stay
// open for as long as the peer liked), a refused request's socket shortly
// after its answer, and on shutdown whatever is left at the deadline.

import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Server } from 'node:https';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface ConnectionTracker {
  /** Follows a response until it is sent, so that a refusal or the drain can close its connection after it. */
  answering(response: ServerResponse): void;
  /** The drain: every answer in progress, and every one to come, closes its connection. */
  closeAfterAnswers(): void;
  /** Destroys the connections that never finished a handshake: they hold no request. */
  destroyUnsecured(): void;
  /** Destroys every connection left. */
  destroyAll(): void;
  /** Whether no request has arrived for `ms` (performance.now()'s clock). */
  quietFor(ms: number): boolean;
  /** Whether a request has arrived on this TLS socket before. */
  carriedRequests(socket: Socket): boolean;
  /** Ends a socket with a refusal, and destroys it if the peer has not closed it within `lingerMs`. */
  refuse(socket: Socket, answer: string): void;
}

export interface ConnectionTrackerOptions {
  readonly maxConnections: number;
  readonly lingerMs: number;
  readonly log: Logger;
  readonly registry: Registry;
}

export function trackConnections(server: Server, options: ConnectionTrackerOptions): ConnectionTracker {
  return new Connections(server, options);
}

class Connections implements ConnectionTracker {
  /** Raw TCP sockets by their peer's address and port: that pair names a connection to one listening socket. */
  readonly #open = new Map<string, Socket>();
  readonly #secured = new Set<string>();
  // The response each TLS connection is answering, or answered last: one entry per connection, overwritten by its
  // next request. A Set of responses, added to and deleted from per request, churned: V8 rehashed its table, and a
  // table left behind in the old generation kept young responses, and all they hold, alive through scavenges (~1 MB
  // promoted per scavenge under wrk -c25, 2 ms pauses and a full collection every few seconds; docs/benchmarks.md,
  // "Sixth look").
  readonly #answers = new Map<Socket, ServerResponse>();
  readonly #carried = new WeakSet<Socket>();
  readonly #lingerMs: number;
  #lastRequestAt = 0;
  #draining = false;

  constructor(server: Server, { maxConnections, lingerMs, log, registry }: ConnectionTrackerOptions) {
    this.#lingerMs = lingerMs;
    const { dropped, handshakeFailures } = connectionMetrics(registry, this.#open, this.#secured, maxConnections);
    server.maxConnections = maxConnections;
    server.on('drop', () => dropped.inc());
    server.on('connection', (socket: Socket) => {
      const key = peerOf(socket);
      this.#open.set(key, socket);
      socket.once('close', () => {
        this.#open.delete(key);
        this.#secured.delete(key);
      });
    });
    server.on('secureConnection', (socket: Socket) => {
      this.#secured.add(peerOf(socket));
      socket.once('close', () => this.#answers.delete(socket));
    });
    server.on('tlsClientError', (error: NodeJS.ErrnoException, socket: Socket) => {
      handshakeFailures.inc();
      log.debug({ err: error, code: error.code }, 'TLS handshake failed');
      socket.destroy();
    });
  }

  answering(response: ServerResponse): void {
    this.#carried.add(response.req.socket);
    this.#lastRequestAt = performance.now();
    if (this.#draining) return closeAfter(response);
    this.#answers.set(response.req.socket, response);
  }

  carriedRequests(socket: Socket): boolean {
    return this.#carried.has(socket);
  }

  quietFor(ms: number): boolean {
    return performance.now() - this.#lastRequestAt >= ms;
  }

  closeAfterAnswers(): void {
    this.#draining = true;
    this.#answers.forEach(closeAfter);
  }

  refuse(socket: Socket, answer: string): void {
    socket.end(answer);
    setTimeout(() => socket.destroy(), this.#lingerMs).unref();
  }

  destroyUnsecured(): void {
    for (const [key, socket] of this.#open) if (!this.#secured.has(key)) socket.destroy();
  }

  destroyAll(): void {
    for (const socket of this.#open.values()) socket.destroy();
  }
}

function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('Connection', 'close');
}

function connectionMetrics(
  registry: Registry,
  open: ReadonlyMap<string, Socket>,
  secured: ReadonlySet<string>,
  maxConnections: number,
) {
  new Gauge({
    name: 'topogate_open_connections',
    help: 'TCP connections the webhook holds, handshaking or not.',
    registers: [registry],
    collect() {
      this.set(open.size);
    },
  });
  new Gauge({
    name: 'topogate_secured_connections',
    help: 'Of the open connections, those past their TLS handshake.',
    registers: [registry],
    collect() {
      this.set(secured.size);
    },
  });
  return {
    dropped: new Counter({
      name: 'topogate_connections_dropped_total',
      help: `Connections refused at accept because ${maxConnections} were already open.`,
      registers: [registry],
    }),
    handshakeFailures: new Counter({
      name: 'topogate_tls_handshake_failures_total',
      help: 'TLS handshakes that failed or timed out; their sockets are destroyed at once.',
      registers: [registry],
    }),
  };
}

function peerOf(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}
