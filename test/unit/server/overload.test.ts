// Overload on a real server on 127.0.0.1: requests that waited too long get
// the safe answer (admitted unchanged, with a warning) without a decision;
// past the in-flight cap a request is refused at once; /healthz answers
// throughout. Asserted on the answers and the counters, never on timings.

import assert from 'node:assert/strict';
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { after, before, test } from 'node:test';
import type { Decision } from '../../../src/policy/types.ts';
import { createDecisionCost } from '../../../src/server/budget.ts';
import { defaultMaxInFlight, defaultSlowBody } from '../../../src/server/overload.ts';
import { metricValue, postJson, send, startTestServer, until, type Reply, type Running, podReview } from './https.ts';

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Blocks the event loop without spinning the CPU, as a slow decision would. */
const blockFor = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

/**
 * A budget large beside a loaded machine's scheduling noise (the 16 handshakes of the burst share this process's loop
 * with the server), so that only the slow decision, never the noise, sheds a request.
 */
const budgetMs = 200;
const slowDecisionMs = 400;

const patch = [{ op: 'add' as const, path: '/metadata/labels', value: { decided: 'yes' } }];
let decisionMs = 0;
let running: Running;

before(async () => {
  running = await startTestServer({
    // The held requests below stand for real ones still arriving: no slow body loses its slot here (slow-bodies.test.ts).
    limits: { slowBody: { ...defaultSlowBody, graceMs: 600_000 } },
    budgetMs,
    decide: (): Decision => {
      blockFor(decisionMs);
      return { allowed: true, patch, warnings: [], auditAnnotations: {}, applied: ['p'], matched: ['p'] };
    },
  });
});
after(() => running.stop());

const review = podReview;

test('a burst of Pods slower to decide than the budget: one is decided, the rest get the safe answer at once', async () => {
  decisionMs = slowDecisionMs;
  const ca = running.certificates.caCert;
  const replies = await Promise.all(
    Array.from({ length: 16 }, (_, index) => postJson(running.server.url, ca, review(`burst-${index}`))),
  );
  decisionMs = 0;
  let decided = 0;
  let skipped = 0;
  for (const [index, reply] of replies.entries()) {
    assert.equal(reply.status, 200, reply.text);
    const { response } = reply.json();
    assert.equal(response.uid, `burst-${index}`);
    assert.equal(response.allowed, true);
    if (response.patch !== undefined) {
      decided++;
      continue;
    }
    skipped++;
    assert.equal(response.patchType, undefined);
    assert.equal(response.warnings.length, 1);
    assert.match(
      response.warnings[0],
      new RegExp(
        `skipped placement: .* of its ${budgetMs} ms budget was spent before deciding; the Pod is admitted unchanged`,
      ),
    );
  }
  // The first decision sets the estimate (400 ms) over the budget (200 ms): every later request in the burst is shed.
  assert.ok(decided >= 1, 'the first request is decided');
  assert.ok(skipped >= 1, 'the others are shed');
  assert.equal(await metricValue(running, 'topogate_budget_exceeded_total', { stage: 'before_decision' }), skipped);
  assert.equal(await metricValue(running, 'topogate_admission_requests_total', { outcome: 'skipped' }), skipped);
  assert.equal(await metricValue(running, 'topogate_admission_requests_total', { outcome: 'patched' }), decided);
});

test('after a quiet second the next request is decided whatever the estimate, so one slow decision does not stop all the next ones', () => {
  let now = 0;
  const cost = createDecisionCost(1000, () => now);
  cost.record(40);
  now = 999;
  assert.equal(cost.estimateMs(), 40, 'remembered while decisions are recent');
  now = 2000;
  assert.equal(cost.estimateMs(), 0, 'after a quiet second: the next request is decided');
  cost.record(0.2);
  assert.equal(cost.estimateMs(), 0.2, 'a latched estimate recovers at once');
  now = 2100;
  cost.record(1.2);
  assert.ok(Math.abs(cost.estimateMs() - 0.3) < 1e-9, 'then follows slowly again');
  now = 9000;
  cost.record(6);
  assert.ok(
    Math.abs(cost.estimateMs() - 0.3) < 1e-9,
    'a slow first decision after an idle spell does not make it pessimistic',
  );
});

/** A POST whose body is never finished until `finish` is called: a request held in flight. */
function heldRequest(url: string, ca: string): { reply: Promise<Reply>; request: ClientRequest } {
  let request!: ClientRequest;
  const reply = new Promise<Reply>((resolve, reject) => {
    request = httpsRequest(
      new URL('/mutate', url),
      { method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            issuer: '',
            json: () => JSON.parse(text),
          });
        });
      },
    );
    request.on('error', reject);
  });
  request.write('{"apiVersion":"admission.k8s.io/v1",');
  return { reply, request };
}

test('past the in-flight cap a request is refused with 429 before its body is read; /healthz answers; the cap frees as requests end', async () => {
  const { url } = running.server;
  const ca = running.certificates.caCert;
  const held = Array.from({ length: defaultMaxInFlight }, () => heldRequest(url, ca));
  try {
    await until(
      async () => (await metricValue(running, 'topogate_in_flight_requests')) === defaultMaxInFlight,
      `${defaultMaxInFlight} requests in flight`,
      30_000,
    );

    const refused = await postJson(url, ca, review('one-too-many'));
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.connection, 'close');
    assert.equal(refused.json().reason, 'TooManyRequests');
    assert.match(refused.json().message, /128 AdmissionReviews are already in flight/);
    assert.equal(await metricValue(running, 'topogate_in_flight_refused_total'), 1);
    assert.equal((await send(url, '/healthz', ca)).status, 200, '/healthz is not capped');

    for (const [index, { request }] of held.entries())
      request.end(`"kind":"AdmissionReview","request":${JSON.stringify(review(`held-${index}`).request)}}`);
    const replies = await Promise.all(held.map(({ reply }) => reply));
    replies.forEach((reply, index) => {
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.json().response.uid, `held-${index}`);
    });
    assert.equal(await metricValue(running, 'topogate_in_flight_requests'), 0);
    assert.equal((await postJson(url, ca, review('after'))).status, 200, 'the cap is free again');
  } finally {
    for (const { request } of held) request.destroy();
  }
});
