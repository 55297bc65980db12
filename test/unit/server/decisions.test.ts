import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request } from 'node:https';
import { text } from 'node:stream/consumers';
import { test } from 'node:test';
import type { Decision } from '../../../src/policy/types.ts';
import type { Readiness } from '../../../src/ports/readiness.ts';
import { metricValue, postJson, send, startTestServer } from './https.ts';

const podReview = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'admission.k8s.io/v1beta1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u-9',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    operation: 'CREATE',
    object: { metadata: { name: 'p' } },
    ...extra,
  },
});
const patching = (): Decision => ({
  allowed: true,
  patch: [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }],
  warnings: [],
  auditAnnotations: {},
  applied: ['gpu'],
  matched: ['gpu'],
});

test('over the budget: admitted unchanged at once with a warning, counted, the decision not run', async () => {
  let decided = 0;
  const running = await startTestServer({ budgetMs: 0.000001, decide: () => (decided++, patching()) });
  try {
    assert.ok(decided > 0, 'the warm-up reviews, before serving, are decided whatever the budget');
    decided = 0;
    const reply = await postJson(running.server.url, running.certificates.caCert, podReview());
    assert.equal(reply.status, 200);
    const { response } = reply.json();
    assert.equal(response.allowed, true);
    assert.equal(response.patch, undefined);
    assert.match(
      response.warnings[0],
      /^topogate skipped placement: \d+\.\d ms of its 0.000001 ms budget was spent before deciding; the Pod is admitted unchanged$/,
    );
    assert.equal(decided, 0);
    assert.equal(await metricValue(running, 'topogate_budget_exceeded_total', { stage: 'before_decision' }), 1);
    assert.equal(
      await metricValue(running, 'topogate_admission_requests_total', { outcome: 'skipped', dry_run: 'false' }),
      1,
    );
  } finally {
    await running.stop();
  }
});

test("the API server's ?timeout= shortens the budget, never lengthens it", async () => {
  let decided = 0;
  const running = await startTestServer({ budgetMs: 60_000, decide: () => (decided++, patching()) });
  decided = 0;
  try {
    const { url } = running.server;
    assert.equal(
      (await postJson(url, running.certificates.caCert, podReview(), '?timeout=30s')).json().response.patchType,
      'JSONPatch',
    );
    assert.match(
      (await postJson(url, running.certificates.caCert, podReview(), '?timeout=1ns')).json().response.warnings[0],
      /of its 0.000001 ms budget/,
    );
    assert.equal(decided, 1);
    // The budget is worked out once per URL: the same URL again, then the first one back.
    assert.match(
      (await postJson(url, running.certificates.caCert, podReview(), '?timeout=1ns')).json().response.warnings[0],
      /of its 0.000001 ms budget/,
    );
    assert.equal(
      (await postJson(url, running.certificates.caCert, podReview(), '?timeout=30s')).json().response.patchType,
      'JSONPatch',
    );
    assert.equal(decided, 2);
  } finally {
    await running.stop();
  }
});

test('a dry run gets the same answer and leaves no count of applied decisions', async () => {
  const running = await startTestServer({ decide: patching });
  try {
    const { url } = running.server;
    const dry = (await postJson(url, running.certificates.caCert, podReview({ dryRun: true }))).json();
    const real = (await postJson(url, running.certificates.caCert, podReview({ dryRun: false }))).json();
    assert.deepEqual(dry, real);
    assert.equal(dry.response.patchType, 'JSONPatch');
    assert.equal(
      await metricValue(running, 'topogate_admission_requests_total', { outcome: 'patched', dry_run: 'true' }),
      1,
    );
    assert.equal(
      await metricValue(running, 'topogate_admission_requests_total', { outcome: 'patched', dry_run: 'false' }),
      1,
    );
    assert.equal(await metricValue(running, 'topogate_policy_applied_total', { policy: 'gpu' }), 1);
    assert.equal(await metricValue(running, 'topogate_policy_matches_total', { policy: 'gpu' }), 1);
  } finally {
    await running.stop();
  }
});

test("a replica's body, met twice before but for its uid, is not parsed again; each answer has its own uid", async () => {
  const running = await startTestServer({ decide: patching });
  try {
    const { url } = running.server;
    const replica = (uid: string) => ({ ...podReview(), request: { ...podReview().request, uid } });
    const answers: Record<string, any>[] = [];
    for (const uid of ['r-1', 'r-2', 'r-3', 'r-4'])
      answers.push((await postJson(url, running.certificates.caCert, replica(uid))).json());
    assert.deepEqual(
      answers.map(({ response }) => response.uid),
      ['r-1', 'r-2', 'r-3', 'r-4'],
    );
    assert.deepEqual(
      answers.map(({ response }) => ({ ...response, uid: '' })),
      answers.map(() => ({ ...answers[0]!.response, uid: '' })),
    );
    assert.equal(await metricValue(running, 'topogate_admission_reviews_remembered_total'), 2);
  } finally {
    await running.stop();
  }
});

test('/readyz is 503 with the reasons until every check is ready, then 200 with any degradation said', async () => {
  let topology: Readiness = { ready: false, reason: 'nodes not synced' };
  let policies: Readiness = { ready: true };
  const running = await startTestServer({ checks: { policies: () => policies, topology: () => topology } });
  try {
    const { url } = running.server;
    const ca = running.certificates.caCert;
    const notReady = await send(url, '/readyz', ca);
    assert.equal(notReady.status, 503);
    assert.equal(notReady.text, '[+]policies ok\n[-]topology not ready: nodes not synced\nreadyz check failed\n');
    const asJson = await send(url, '/readyz', ca, { headers: { accept: 'application/json' } });
    assert.deepEqual(asJson.json(), {
      ready: false,
      checks: { policies: { ready: true }, topology: { ready: false, reason: 'nodes not synced' } },
    });

    topology = { ready: true };
    policies = {
      ready: true,
      reason: 'reload failed at policies/gpu.yaml:3:7: unknown field "gpus"; serving the last good set',
    };
    const ready = await send(url, '/readyz', ca);
    assert.equal(ready.status, 200);
    assert.equal(
      ready.text,
      '[+]policies ok: reload failed at policies/gpu.yaml:3:7: unknown field "gpus"; serving the last good set\n[+]topology ok\nreadyz check passed\n',
    );
  } finally {
    await running.stop();
  }
});

test('/readyz says so when a check itself throws', async () => {
  const running = await startTestServer({
    checks: {
      topology: () => {
        throw new Error('boom');
      },
    },
  });
  try {
    const failed = await send(running.server.url, '/readyz', running.certificates.caCert);
    assert.equal(failed.status, 503);
    assert.equal(failed.text, '[-]topology not ready: the check failed: boom\nreadyz check failed\n');
  } finally {
    await running.stop();
  }
});

test('close() lets a request in flight finish, then refuses new connections', async () => {
  const running = await startTestServer({ decide: patching });
  const { url } = running.server;
  const ca = running.certificates.caCert;
  // "Expect: 100-continue": the server says when it has the headers, and the request is then in flight.
  const req = request(new URL('/mutate', url), {
    method: 'POST',
    ca,
    agent: false,
    headers: { 'content-type': 'application/json', expect: '100-continue' },
  });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', async (res) => resolve({ status: res.statusCode ?? 0, text: await text(res) }));
    req.on('error', reject);
  });
  req.flushHeaders();
  await once(req, 'continue');
  const closed = running.stop();
  req.end(JSON.stringify(podReview()));
  const reply = await response;
  assert.equal(reply.status, 200, reply.text);
  assert.equal(JSON.parse(reply.text).response.patchType, 'JSONPatch');
  await closed;
  await assert.rejects(send(url, '/healthz', ca), /ECONNREFUSED/);
});
