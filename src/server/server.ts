// The webhook over HTTPS: its request listener (listener.ts) on node:https, its certificate kept in
// step with --cert-dir, timeouts chosen against slow clients and for the API
// server's connection reuse (limits.ts), every connection tracked so none
// outlives its use, and a shutdown that lets in-flight requests end and then
// always ends.

import { randomUUID } from 'node:crypto';
import type { Server, ServerOptions } from 'node:https';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { trackConnections, type ConnectionTracker } from './connections.ts';
import { defaultMaxBodyBytes } from './body.ts';
import { createDecisionCost } from './budget.ts';
import { watchCertificates } from './certificates.ts';
import { clientCertificateSettings } from './clientAuth.ts';
import { createWebhookMetrics } from './metrics.ts';
import { watchLoopLag, type LoopLag } from './lag.ts';
import { defaultLimits, type ServerLimits } from './limits.ts';
import type { ReadinessChecks } from './readiness.ts';
import { answerClientError, refuseExpectation, refuseWithoutHost } from './refusals.ts';
import { createRequestListener } from './listener.ts';
import type { DecisionOptions } from './mutateOptions.ts';
import { keyPairProblem, readKeyPair, tlsSettings, type KeyPair } from './tls.ts';
import { trimAfterFloods, type FloodTrimOptions } from './trim.ts';
import { warmUp, warmUpHeader } from './warmup.ts';

export interface WebhookServerOptions extends DecisionOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Holds tls.crt and tls.key; watched for changes. */
  readonly certDir: string;
  readonly budgetMs: number;
  readonly maxBodyBytes?: number;
  readonly checks: ReadinessChecks;
  readonly log: Logger;
  readonly registry: Registry;
  /** Timeouts, the connection cap and the shutdown grace; each defaults to limits.ts. */
  readonly limits?: Partial<ServerLimits>;
  /** AdmissionReviews held at once (default 128). */
  readonly maxInFlight?: number;
  /** PEM CA bundle: /mutate then answers only clients presenting a certificate it signed (serve --client-ca). */
  readonly clientCa?: string;
  /** When memory freed by a connection flood goes back to the system (trim.ts defaults). */
  readonly floodTrim?: Pick<FloodTrimOptions, 'intervalMs' | 'minClosed' | 'every'>;
}

export interface WebhookServer {
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting, closes idle connections, answers in-flight requests with `Connection: close`, and destroys
   * whatever is left after the shutdown grace: it always resolves, within that grace.
   */
  close(): Promise<void>;
}

/** How often Node enforces headersTimeout and requestTimeout: its default, 30 s, would let a slow client hold a connection for 40 s. */
const connectionsCheckingIntervalMs = 1_000;

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const { host, port, certDir, log, registry } = options;
  const limits = { ...defaultLimits, ...options.limits };
  const pair = await readKeyPair(certDir);
  const problem = keyPairProblem(pair);
  if (problem !== undefined) throw new Error(`the certificate in ${certDir} cannot serve: ${problem}`);

  const lag = watchLoopLag();
  const listener = requestListener(options, limits, lag, registry, log, options.clientCa !== undefined);
  const twin = requestListener(options, limits, lag, new Registry(), log.child({}, { level: 'silent' }), false, true);
  let warmUpToken: string | undefined = randomUUID();
  const clientAuth = options.clientCa === undefined ? {} : clientCertificateSettings(options.clientCa);
  const server = createServer(serverSettings(limits, clientAuth, pair), (request, response) => {
    if (refuseWithoutHost(request, response)) return;
    (warmUpToken !== undefined && request.headers[warmUpHeader] === warmUpToken ? twin : listener)(request, response);
  });
  const { connections, trim, closeIdleConnections } = guard(server, limits, options);
  const certificates = watchCertificates({
    dir: certDir,
    initial: pair,
    apply: (next) => server.setSecureContext({ ...tlsSettings, ...clientAuth, ...next }),
    log,
    registry,
  });
  const stopWatches = () => {
    certificates.stop();
    lag.stop();
    trim.stop();
  };
  await listen(server, port, host).catch((error: unknown) => {
    stopWatches();
    throw error;
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : port;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  await warmUpOnce(host, boundPort, warmUpToken, log);
  warmUpToken = undefined;
  log.info({ url, certDir, budgetMs: options.budgetMs }, 'webhook serving');
  return {
    url,
    port: boundPort,
    close: () => {
      stopWatches();
      return drain(server, connections, limits, closeIdleConnections);
    },
  };
}

/**
 * The routes over one metrics registry and log at one budget: the webhook's, and its twin's (a registry and log
 * of its own, no budget), which answers the warm-up review without counting it.
 */
function requestListener(
  options: WebhookServerOptions,
  limits: ServerLimits,
  lag: LoopLag,
  metricsRegistry: Registry,
  appLog: Logger,
  requireClientCertificate: boolean,
  noBudget = false,
) {
  const budgetMs = noBudget ? Number.POSITIVE_INFINITY : options.budgetMs;
  return createRequestListener({
    mutate: {
      decide: options.decide,
      ...(options.defer && { defer: options.defer }),
      ...(options.whenLate && { whenLate: options.whenLate }),
      ...(options.decideClaim && { decideClaim: options.decideClaim }),
      ...(options.admitted && { admitted: options.admitted }),
      budgetMs,
      maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
      cost: createDecisionCost(),
      metrics: createWebhookMetrics(metricsRegistry),
    },
    checks: options.checks,
    registry: metricsRegistry,
    log: appLog,
    requireClientCertificate,
    lag,
    ...(options.maxInFlight !== undefined && { maxInFlight: options.maxInFlight }),
    slowBody: limits.slowBody,
  });
}

/**
 * What watches over the server's connections: every one tracked and capped, memory trimmed after floods, bad
 * requests answered; and the idle connections closed by the drain alone. node:http's close() closes every idle
 * kept-alive connection at once, which resets a request already sent on one (8 of 8 back-to-back clients got
 * ECONNRESET): the drain closes them itself, once requests stop coming.
 */
function guard(server: Server, limits: ServerLimits, { log, registry, floodTrim }: WebhookServerOptions) {
  const closeIdleConnections = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {};
  const connections = trackConnections(server, {
    maxConnections: limits.maxConnections,
    lingerMs: limits.refusalLingerMs,
    log,
    registry,
  });
  const trim = trimAfterFloods(server, { ...floodTrim, log, registry });
  server.on('clientError', answerClientError(connections, log));
  server.on('checkExpectation', refuseExpectation);
  // During the drain every answer closes its connection, so no client sends another request into the shutdown.
  server.prependListener('request', (_request, response: ServerResponse) => connections.answering(response));
  return { connections, trim, closeIdleConnections };
}

function serverSettings(limits: ServerLimits, clientAuth: object, pair: KeyPair): ServerOptions {
  return {
    ...tlsSettings,
    ...clientAuth,
    ...pair,
    handshakeTimeout: limits.handshakeTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: connectionsCheckingIntervalMs,
    // Node's own refusal has an empty body: refuseWithoutHost answers with a Status instead.
    requireHostHeader: false,
  };
}

/** One review through the twin, so that the first real ones find the code warm; a failure is only said. */
async function warmUpOnce(host: string, port: number, token: string, log: Logger): Promise<void> {
  const status = await warmUp(host, port, token).catch(
    (error: unknown) => (log.warn({ err: error }, 'the warm-up request failed'), 0),
  );
  if (status !== 200) log.warn({ status }, 'the warm-up review was not answered: the first requests may be slow');
}

/** Lets the in-flight requests end, then always ends: what is left after the shutdown grace is destroyed. */
function drain(
  server: Server,
  connections: ConnectionTracker,
  limits: ServerLimits,
  closeIdleConnections: () => void,
): Promise<void> {
  connections.closeAfterAnswers();
  return new Promise<void>((resolve) => {
    const cut = setTimeout(() => connections.destroyAll(), limits.shutdownGraceMs).unref();
    // Busy kept-alive connections close after their next answer (Connection: close), idle ones once requests
    // have stopped coming.
    const quiet = setInterval(() => {
      if (connections.quietFor(limits.drainQuietMs)) closeIdleConnections();
    }, limits.drainQuietMs / 5).unref();
    server.close(() => {
      clearTimeout(cut);
      clearInterval(quiet);
      resolve();
    });
    connections.destroyUnsecured();
  });
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
