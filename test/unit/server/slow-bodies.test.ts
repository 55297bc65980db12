// Slow senders that hold every in-flight slot and reconnect after each
// refusal (no --client-ca): a real request still gets its answer, since a
// body slower than the minimum rate loses its slot to it with a 408 that says
// why. Asserted on answers and counters; the only wait is past the grace.

import assert from 'node:assert/strict';
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultSlowBody } from '../../../src/server/overload.ts';
import { metricValue, postJson, podReview, startTestServer, until, type Running } from './https.ts';

const maxInFlight = 4;
const graceMs = 300;

/** A POST that sends the start of its body and then nothing: its answer's status, or 0 if the connection dies. */
function slowSender(running: Running): { status: Promise<number>; request: ClientRequest } {
  let request!: ClientRequest;
  const status = new Promise<number>((resolve) => {
    request = httpsRequest(
      new URL('/mutate', running.server.url),
      {
        method: 'POST',
        ca: running.certificates.caCert,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': '100000' },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    request.on('error', () => resolve(0));
  });
  request.write('{"apiVersion":"admission.k8s.io/v1",');
  return { status, request };
}

test('slow senders holding every slot, reconnecting after each 408: real requests are still answered', async () => {
  const running = await startTestServer({ maxInFlight, limits: { slowBody: { ...defaultSlowBody, graceMs } } });
  const senders: ReturnType<typeof slowSender>[] = [];
  const fill = async () => {
    while ((await metricValue(running, 'topogate_in_flight_requests')) < maxInFlight) {
      senders.push(slowSender(running));
      await until(
        async () =>
          (await metricValue(running, 'topogate_in_flight_requests')) >= Math.min(senders.length, maxInFlight),
        'the slow sender to take a slot',
      );
    }
  };
  try {
    for (let round = 0; round < 3; round++) {
      await fill();
      await sleep(graceMs * 2);
      const reply = await postJson(running.server.url, running.certificates.caCert, podReview(`real-${round}`));
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.json().response.uid, `real-${round}`);
    }
    const statuses = await Promise.all(senders.slice(0, 3).map(({ status }) => status));
    assert.deepEqual(statuses, [408, 408, 408], 'the oldest slow senders lost their slots, told why');
    assert.equal(await metricValue(running, 'topogate_slow_bodies_evicted_total'), 3);
    assert.equal(await metricValue(running, 'topogate_in_flight_refused_total'), 0);
  } finally {
    for (const { request } of senders) request.destroy();
    await running.stop();
  }
});
