// A real webhook server on 127.0.0.1 with a fresh CA, and a real HTTPS client
// that trusts only that CA: the protocol tests go through TLS and Node's HTTP
// parser exactly as the API server's requests do.

import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { issueCertificates, type CertificateSet } from '../../../src/certs/issue.ts';
import { writeCertificates } from '../../../src/certs/write.ts';
import { startWebhookServer, type WebhookServer, type WebhookServerOptions } from '../../../src/server/server.ts';

export interface Running {
  readonly server: WebhookServer;
  readonly registry: Registry;
  readonly certDir: string;
  readonly certificates: CertificateSet;
  stop(): Promise<void>;
}

export async function startTestServer(options: Partial<WebhookServerOptions> = {}): Promise<Running> {
  const certDir = await mkdtemp(join(tmpdir(), 'topogate-test-'));
  const certificates = issueCertificates({ service: 'topogate', namespace: 'test', localhost: true });
  await writeCertificates(certDir, certificates);
  const registry = new Registry();
  const server = await startWebhookServer({
    host: '127.0.0.1',
    port: 0,
    certDir,
    budgetMs: 1000,
    decide: () => ({ allowed: true, patch: [], warnings: [], auditAnnotations: {}, applied: [], matched: [] }),
    checks: {},
    log: pino({ level: 'silent' }),
    registry,
    ...options,
  });
  return {
    server,
    registry,
    certDir,
    certificates,
    async stop() {
      await server.close();
      await rm(certDir, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The issuer CN of the certificate the server presented. */
  readonly issuer: string;
  json(): any;
}

export interface SendOptions extends RequestOptions {
  /** Written in pieces, each after the previous one (a chunked body when no Content-Length is set). */
  readonly chunks?: readonly (string | Buffer)[];
  /** Waits this long before the last chunk. */
  readonly pauseMs?: number;
  /** Sends the last chunk once this settles: a request held in flight until the test has done its part. */
  readonly lastChunkAfter?: Promise<unknown>;
}

export function send(
  url: string,
  path: string,
  ca: string | string[],
  options: SendOptions = {},
  body?: string | Buffer,
): Promise<Reply> {
  const { chunks = body === undefined ? [] : [body], pauseMs = 0, lastChunkAfter, ...request } = options;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, url), { ca, agent: false, ...request }, (res) => {
      const parts: Buffer[] = [];
      const issuer = String((res.socket as import('node:tls').TLSSocket).getPeerCertificate().issuer?.CN ?? '');
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, issuer, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    // Headers first when the body comes in pieces, as a slow client sends them.
    if (chunks.length > 1 || pauseMs > 0 || lastChunkAfter) req.flushHeaders();
    void (async () => {
      for (const [index, chunk] of chunks.entries()) {
        // Unref'd: a test that has its answer does not wait for the rest of the body.
        if (index === chunks.length - 1 && pauseMs > 0) await new Promise((done) => setTimeout(done, pauseMs).unref());
        if (index === chunks.length - 1 && lastChunkAfter) await lastChunkAfter;
        if (!req.write(chunk)) await new Promise((done) => req.once('drain', done));
      }
      req.end();
    })();
  });
}

export function postJson(url: string, ca: string | string[], value: unknown, query = ''): Promise<Reply> {
  return send(
    url,
    `/mutate${query}`,
    ca,
    { method: 'POST', headers: { 'content-type': 'application/json' } },
    JSON.stringify(value),
  );
}

/** The sum of a metric's samples that carry the given labels (others free), or 0 when none. */
export async function metricValue(
  running: Running,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = await running.registry.getSingleMetric(name)?.get();
  const samples =
    metric?.values.filter((value) =>
      Object.entries(labels).every(([key, wanted]) => String(value.labels[key]) === wanted),
    ) ?? [];
  return samples.reduce((sum, sample) => sum + sample.value, 0);
}

/** Polls `condition` every 25 ms until it holds; fails naming `what` after `timeoutMs` (5 s). */
export async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  for (let attempt = 0; attempt < timeoutMs / 25; attempt++) {
    if (await condition()) return;
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** A Pod CREATE review whose uid and Pod name are `uid`. */
export const podReview = (uid: string) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    operation: 'CREATE',
    namespace: 'default',
    object: { metadata: { name: uid } },
  },
});
