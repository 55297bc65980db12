import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { Decision } from '../../../src/policy/types.ts';
import { createDecisionCost } from '../../../src/server/budget.ts';
import { createWebhookMetrics } from '../../../src/server/metrics.ts';
import { mutateHandler } from '../../../src/server/mutate.ts';

/** A Pod CREATE as the API server posts it, already in full in the stream. */
function incoming(uid: string): IncomingMessage {
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid, kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE', object: { metadata: {} } },
  };
  const stream = new PassThrough();
  stream.end(JSON.stringify(review));
  return Object.assign(stream, { headers: { 'content-type': 'application/json' }, url: '/mutate' }) as never;
}

function response(events: string[]): ServerResponse {
  const fake = {
    writeHead: () => fake,
    end: (body: string) => events.push(`write ${JSON.parse(body).response.uid}`),
  };
  return fake as never;
}

test("a turn's requests are each decided before any answer is written, and answered in arrival order", async () => {
  const events: string[] = [];
  const handle = mutateHandler({
    decide: (): Decision => {
      events.push('decide');
      return { allowed: true, patch: [], warnings: [], auditAnnotations: {}, applied: [], matched: [] };
    },
    budgetMs: 1000,
    maxBodyBytes: 65536,
    cost: createDecisionCost(),
    metrics: createWebhookMetrics(new Registry()),
    log: pino({ level: 'silent' }),
  });
  const uids = ['u1', 'u2', 'u3'];
  await Promise.all(uids.map((uid) => handle(incoming(uid), response(events), performance.now())));
  assert.deepEqual(events, ['decide', 'decide', 'decide', 'write u1', 'write u2', 'write u3']);
});
