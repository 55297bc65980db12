// A request whose bytes arrive while the event loop is blocked waited, unseen,
// before Node parsed its headers. That wait counts into its budget: it gets
// the safe answer at once instead of a decision answered late.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { connect } from 'node:tls';
import type { Decision } from '../../../src/policy/types.ts';
import { metricValue, podReview, startTestServer, type Running } from './https.ts';

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Blocks the event loop, as a 2 MiB body being parsed would. */
const blockFor = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);
/**
 * Large beside a loaded machine's scheduling noise (tens of ms at a load average of 20 on 2 cores), so that only
 * the blocked loop, never the noise, decides between the two answers.
 */
const budgetMs = 200;
const blockMs = 1_000;
/** How often the server samples the loop's lag: a block may begin up to this long before the tick it delays is due. */
const lagIntervalMs = 10;

let running: Running;
before(async () => {
  running = await startTestServer({
    budgetMs,
    decide: (): Decision => ({
      allowed: true,
      patch: [{ op: 'add', path: '/metadata/labels', value: { decided: 'yes' } }],
      warnings: [],
      auditAnnotations: {},
      applied: ['p'],
      matched: ['p'],
    }),
  });
});
after(() => running.stop());

function reviewRequest(uid: string): string {
  const body = JSON.stringify(podReview(uid));
  const head = `POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
  return `${head}Connection: close\r\n\r\n${body}`;
}

/** Sends a review on an open TLS connection, blocks the loop for `blockMs` at once, then reads the answer. */
async function answerAfterBlock(uid: string, blockMs: number): Promise<string> {
  const socket = connect({
    host: '127.0.0.1',
    port: Number(new URL(running.server.url).port),
    ca: running.certificates.caCert,
    servername: 'localhost',
  });
  await once(socket, 'secureConnect');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  socket.write(reviewRequest(uid));
  blockFor(blockMs);
  await once(socket, 'end');
  return text.split('\r\n\r\n')[1] ?? '';
}

test('a request that arrived while the loop was blocked gets the safe answer, the whole block counted', async () => {
  const answer = JSON.parse(await answerAfterBlock('blocked', blockMs)).response;
  assert.equal(answer.uid, 'blocked');
  assert.equal(answer.allowed, true);
  assert.equal(answer.patch, undefined);
  const spent = new RegExp(
    `skipped placement: ([\\d.]+) ms of its ${budgetMs} ms budget was spent before deciding`,
  ).exec(answer.warnings[0]);
  assert.ok(spent, `a skip warning, not ${JSON.stringify(answer.warnings)}`);
  assert.ok(Number(spent[1]) >= blockMs - lagIntervalMs, `the block is in the request's wait: ${spent[1]} ms`);
  assert.equal(await metricValue(running, 'topogate_budget_exceeded_total', { stage: 'before_decision' }), 1);
});

test('once the loop runs freely again, requests are decided: the lag does not latch', async () => {
  // On a busy machine a timer may still fire late for reasons of its own; one decided answer in a few suffices.
  let decided = 0;
  for (let attempt = 0; attempt < 20 && decided === 0; attempt++) {
    await new Promise((done) => setTimeout(done, 50));
    const answer = JSON.parse(await answerAfterBlock(`free-${attempt}`, 0)).response;
    if (answer.patchType === 'JSONPatch') decided++;
  }
  assert.equal(decided, 1);
});
