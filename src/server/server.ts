// The webhook over HTTPS: the Hono app on node:https, its certificate kept in
// step with --cert-dir, timeouts chosen against slow clients and for the API
// server's connection reuse, and a shutdown that lets in-flight requests end.

import { createAdaptorServer } from '@hono/node-server';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:https';
import { createServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { PodDecider, PodDeferrer } from '../admission/handler.ts';
import { createApp } from './app.ts';
import { defaultMaxBodyBytes } from './body.ts';
import { createDecisionCost } from './budget.ts';
import { watchCertificates } from './certificates.ts';
import { clientCertificateSettings } from './clientAuth.ts';
import { createWebhookMetrics } from './metrics.ts';
import type { ReadinessChecks } from './readiness.ts';
import { keyPairProblem, readKeyPair, tlsSettings } from './tls.ts';
import { warmUp, warmUpHeader } from './warmup.ts';

export interface WebhookServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Holds tls.crt and tls.key; watched for changes. */
  readonly certDir: string;
  readonly decide: PodDecider;
  /** serve --defer overrun|always (absent: never). */
  readonly defer?: PodDeferrer;
  readonly budgetMs: number;
  readonly maxBodyBytes?: number;
  readonly checks: ReadinessChecks;
  readonly log: Logger;
  readonly registry: Registry;
  /** How long close() waits for in-flight requests before cutting connections (default 10 s). */
  readonly shutdownGraceMs?: number;
  /** PEM CA bundle: /mutate then answers only clients presenting a certificate it signed (serve --client-ca). */
  readonly clientCa?: string;
}

export interface WebhookServer {
  readonly url: string;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish, stops watching certificates. */
  close(): Promise<void>;
}

/** Headers must arrive within this (slowloris). */
const headersTimeoutMs = 10_000;
/** A whole request within this: the API server gives a webhook at most 30 s. */
const requestTimeoutMs = 30_000;
/** Longer than the API server's idle connection timeout (90 s), so it is always the client that closes an idle connection, never a race. */
const keepAliveTimeoutMs = 120_000;
const handshakeTimeoutMs = 10_000;
/** How often Node enforces headersTimeout and requestTimeout: its default, 30 s, would let a slow client hold a connection for 40 s. */
const connectionsCheckingIntervalMs = 1_000;

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const { host, port, certDir, log, registry } = options;
  const pair = await readKeyPair(certDir);
  const problem = keyPairProblem(pair);
  if (problem !== undefined) throw new Error(`the certificate in ${certDir} cannot serve: ${problem}`);

  const appFor = (metricsRegistry: Registry, appLog: Logger, budgetMs: number, requireClientCertificate = false) =>
    createApp({
      mutate: {
        decide: options.decide,
        ...(options.defer && { defer: options.defer }),
        budgetMs,
        maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
        cost: createDecisionCost(),
        metrics: createWebhookMetrics(metricsRegistry),
      },
      checks: options.checks,
      registry: metricsRegistry,
      log: appLog,
      requireClientCertificate,
    });
  const app = appFor(registry, log, options.budgetMs, options.clientCa !== undefined);
  const twin = appFor(new Registry(), log.child({}, { level: 'silent' }), Number.POSITIVE_INFINITY);
  let warmUpToken: string | undefined = randomUUID();
  const clientAuth = options.clientCa === undefined ? {} : clientCertificateSettings(options.clientCa);
  const server = createAdaptorServer({
    fetch: (request, env) =>
      (warmUpToken !== undefined && request.headers.get(warmUpHeader) === warmUpToken ? twin : app).fetch(request, env),
    createServer,
    serverOptions: {
      ...tlsSettings,
      ...clientAuth,
      ...pair,
      handshakeTimeout: handshakeTimeoutMs,
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: connectionsCheckingIntervalMs,
    },
  }) as Server;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, log));
  server.on('tlsClientError', (error) => log.debug({ err: error }, 'TLS handshake failed'));

  const certificates = watchCertificates({
    dir: certDir,
    initial: pair,
    apply: (next) => server.setSecureContext({ ...tlsSettings, ...clientAuth, ...next }),
    log,
    registry,
  });
  try {
    await listen(server, port, host);
  } catch (error) {
    certificates.stop();
    throw error;
  }
  const address = server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : port;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  const warmUpStatus = await warmUp(host, boundPort, warmUpToken).catch(
    (error: unknown) => (log.warn({ err: error }, 'the warm-up request failed'), 0),
  );
  if (warmUpStatus !== 200)
    log.warn({ status: warmUpStatus }, 'the warm-up review was not answered: the first requests may be slow');
  warmUpToken = undefined;
  log.info({ url, certDir, budgetMs: options.budgetMs }, 'webhook serving');

  return {
    url,
    port: boundPort,
    close: () => {
      certificates.stop();
      return new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), options.shutdownGraceMs ?? 10_000).unref();
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** A request Node could not parse: answer it properly and drop the connection, as Node would, but logged. */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, log: Logger): void {
  log.debug({ err: error, code: error.code }, 'malformed request');
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? '431 Request Header Fields Too Large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : '400 Bad Request';
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
