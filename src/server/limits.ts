// How long the server gives a client at each stage, how many connections it
// holds, and how long a shutdown may take. Every socket the server stops
// serving is destroyed within one of these bounds, whatever the client does.

import { defaultSlowBody, type SlowBodyLimits } from './overload.ts';

export interface ServerLimits {
  /** A TLS handshake must finish within this; an unfinished one is destroyed at once. */
  readonly handshakeTimeoutMs: number;
  /** Headers must arrive within this (slowloris). */
  readonly headersTimeoutMs: number;
  /** A whole request within this: the API server gives a webhook at most 30 s. */
  readonly requestTimeoutMs: number;
  /** Longer than the API server's idle connection timeout (90 s), so the client closes idle connections, not a race. */
  readonly keepAliveTimeoutMs: number;
  /** Open TCP connections; Node drops new ones beyond this at accept, before any TLS work. */
  readonly maxConnections: number;
  /** After a refusal at the HTTP level (408, 431, a malformed request), how long the answer may take to leave. */
  readonly refusalLingerMs: number;
  /** On shutdown, how long in-flight requests may take before every socket left is destroyed. */
  readonly shutdownGraceMs: number;
  /**
   * On shutdown, idle kept-alive connections are closed once no request has arrived for this long: a request may
   * be on its way on any of them, and closing it then resets a request the client has sent.
   */
  readonly drainQuietMs: number;
  /** While every in-flight slot is taken, a body slower than this loses its slot to a new request (overload.ts). */
  readonly slowBody: SlowBodyLimits;
}

/**
 * An idle TLS connection costs ~58 KB of RSS. The shipped Deployment has a 512 Mi limit and `serve` itself takes
 * ~160 MB at 10,000 nodes, so 4,096 connections (~240 MB) still leave headroom; the API servers of a cluster keep
 * a few connections each.
 */
export const defaultMaxConnections = 4096;

export const defaultLimits: ServerLimits = {
  handshakeTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 120_000,
  maxConnections: defaultMaxConnections,
  refusalLingerMs: 1_000,
  shutdownGraceMs: 10_000,
  drainQuietMs: 250,
  slowBody: defaultSlowBody,
};
