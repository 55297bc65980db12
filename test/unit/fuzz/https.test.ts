// Fuzzing the real endpoint: a webhook server on 127.0.0.1 deciding with the
// demo policies and cluster, and a real HTTPS client sending spoiled and
// truncated AdmissionReviews, random bytes, deep nesting and wrong content
// types. Every request gets a 200 the API server accepts (its patch applying
// to the object sent) or a 400/413/415 Status saying what is wrong: never a
// 5xx, never a dropped connection, never a polluted prototype.

import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { decide } from '../../../src/policy/engine.ts';
import { metricValue, send, startTestServer, type Running } from '../server/https.ts';
import { baseReviews, fuzzRuns, fuzzSeed, mutated, prototypeFingerprint } from './corpus.ts';
import { demoCompiled, demoOptions } from './demo.ts';
import { assertValidRefusal, assertValidResponse } from './verify.ts';

const maxBodyBytes = 512 * 1024;
let running: Running;
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

before(async () => {
  const compiled = await demoCompiled();
  running = await startTestServer({
    decide: (request) => decide(request, compiled, demoOptions),
    maxBodyBytes,
    budgetMs: 10_000,
  });
});
after(async () => {
  agent.destroy();
  await running.stop();
});

const deeplyNested = fc
  .integer({ min: 100, max: 100_000 })
  .map((depth) => `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`);

const bodies: fc.Arbitrary<string | Buffer> = fc.oneof(
  { weight: 6, arbitrary: mutated(baseReviews).map((review) => JSON.stringify(review) ?? 'null') },
  {
    weight: 2,
    arbitrary: fc.tuple(mutated(baseReviews), fc.double({ min: 0, max: 1, noNaN: true })).map(([review, cut]) => {
      const text = JSON.stringify(review) ?? '';
      return text.slice(0, Math.floor(text.length * cut));
    }),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  { weight: 1, arbitrary: deeplyNested },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
);

const contentTypes = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON') },
  { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/yaml', 'application/json-patch+json', '') },
);

function parsed(body: string | Buffer): Record<string, any> | undefined {
  try {
    return JSON.parse(body.toString()) as Record<string, any>;
  } catch {
    return undefined;
  }
}

test('every request gets a valid AdmissionReview or a 4xx Status; never a 5xx or a polluted prototype', async () => {
  const fingerprint = prototypeFingerprint();
  const { url } = running.server;
  const ca = running.certificates.caCert;
  let answered = 0;
  await fc.assert(
    fc.asyncProperty(bodies, contentTypes, async (body, contentType) => {
      const reply = await send(
        url,
        '/mutate?timeout=10s',
        ca,
        { method: 'POST', agent, headers: { 'content-type': contentType } },
        body,
      );
      assert.ok(reply.status < 500, `a ${reply.status}: ${reply.text.slice(0, 300)}`);
      assert.equal(reply.headers['content-type'], 'application/json');
      if (reply.status !== 200) return assertValidRefusal(reply.status, reply.json());
      answered++;
      const review = parsed(body);
      assert.ok(review !== undefined, 'a 200 only for JSON');
      assertValidResponse(review, reply.json());
      assert.equal(prototypeFingerprint(), fingerprint, 'no prototype gained a property');
    }),
    { numRuns: fuzzRuns(100), seed: fuzzSeed() },
  );
  assert.ok(answered > 0, 'some reviews were answered, not all refused');
  assert.equal(await metricValue(running, 'topogate_admission_requests_total', { outcome: 'error' }), 0);
  const health = await send(url, '/healthz', ca, { agent });
  assert.equal(health.status, 200, 'the server still serves');
});

test('any method on any path gets a 200, 400, 404, 405 or 415, never a 5xx; the server stays up', async () => {
  const { url } = running.server;
  const ca = running.certificates.caCert;
  const methods = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD');
  const paths = fc.oneof(
    fc.constantFrom(
      '/mutate',
      '/healthz',
      '/readyz',
      '/metrics',
      '/',
      '/mutate/',
      '/MUTATE',
      '/mutate?timeout=abc',
      '/mutate?timeout=-1s',
      '/readyz?verbose',
      '/%2e%2e/etc/passwd',
      '/mutate%00',
    ),
    fc.webPath().map((path) => `/${path.replace(/^\/+/, '')}`),
  );
  await fc.assert(
    fc.asyncProperty(methods, paths, async (method, path) => {
      const reply = await send(
        url,
        path,
        ca,
        { method, agent, headers: { 'content-type': 'application/json' } },
        method === 'GET' || method === 'HEAD' ? undefined : '{}',
      );
      assert.ok(reply.status < 500, `${method} ${path}: ${reply.status} ${reply.text.slice(0, 200)}`);
      assert.ok([200, 400, 404, 405, 415].includes(reply.status), `${method} ${path}: ${reply.status}`);
    }),
    { numRuns: fuzzRuns(100), seed: fuzzSeed() },
  );
  assert.equal((await send(url, '/healthz', ca, { agent })).status, 200);
});
