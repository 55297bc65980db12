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
  const { log, registry, lingerMs } = options;
  // Raw TCP sockets by their peer's address and port: that pair names a connection to one listening socket.
  const open = new Map<string, Socket>();
  const secured = new Set<string>();
  // The response each TLS connection is answering, or answered last: one entry per connection, overwritten by its
  // next request. A Set of responses, added to and deleted from per request, churned: V8 rehashed its table, and a
  // table left behind in the old generation kept young responses, and all they hold, alive through scavenges (~1 MB
  // promoted per scavenge under wrk -c25, 2 ms pauses and a full collection every few seconds; docs/benchmarks.md,
  // "Sixth look").
  const answers = new Map<Socket, ServerResponse>();
  const carried = new WeakSet<Socket>();
  let lastRequestAt = 0;
  let draining = false;
  const closeAfter = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('Connection', 'close');
  };
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
  const dropped = new Counter({
    name: 'topogate_connections_dropped_total',
    help: `Connections refused at accept because ${options.maxConnections} were already open.`,
    registers: [registry],
  });
  const handshakeFailures = new Counter({
    name: 'topogate_tls_handshake_failures_total',
    help: 'TLS handshakes that failed or timed out; their sockets are destroyed at once.',
    registers: [registry],
  });

  server.maxConnections = options.maxConnections;
  server.on('drop', () => dropped.inc());
  server.on('connection', (socket: Socket) => {
    const key = peerOf(socket);
    open.set(key, socket);
    socket.once('close', () => {
      open.delete(key);
      secured.delete(key);
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    secured.add(peerOf(socket));
    socket.once('close', () => answers.delete(socket));
  });
  server.on('tlsClientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    handshakeFailures.inc();
    log.debug({ err: error, code: error.code }, 'TLS handshake failed');
    socket.destroy();
  });

  const endAndDestroy = (socket: Socket, answer: string) => {
    socket.end(answer);
    setTimeout(() => socket.destroy(), lingerMs).unref();
  };

  return {
    answering(response) {
      carried.add(response.req.socket);
      lastRequestAt = performance.now();
      if (draining) return closeAfter(response);
      answers.set(response.req.socket, response);
    },
    carriedRequests: (socket) => carried.has(socket),
    quietFor: (ms) => performance.now() - lastRequestAt >= ms,
    closeAfterAnswers() {
      draining = true;
      answers.forEach(closeAfter);
    },
    refuse: endAndDestroy,
    destroyUnsecured() {
      for (const [key, socket] of open) if (!secured.has(key)) socket.destroy();
    },
    destroyAll() {
      for (const socket of open.values()) socket.destroy();
    },
  };
}

function peerOf(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}
