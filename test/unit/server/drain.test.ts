// Shutting down while connections are kept alive: an answer still in progress
// when the drain starts goes out with Connection: close, and a connection
// whose last answer was sent long before is closed as idle, without error.

import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { test } from 'node:test';
import { podReview, send, startTestServer } from './https.ts';

test(
  'the drain closes the connection after the answer in progress, and the idle ones',
  { timeout: 10_000 },
  async () => {
    const running = await startTestServer();
    const { url } = running.server;
    const ca = running.certificates.caCert;
    const post = { method: 'POST', headers: { 'content-type': 'application/json' } } as const;
    const body = JSON.stringify(podReview('drain'));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const slowAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const earlier = await send(url, '/mutate', ca, { ...post, agent }, body);
      assert.equal(earlier.status, 200);
      assert.notEqual(earlier.headers.connection, 'close', 'kept alive before the drain');

      const half = Math.floor(body.length / 2);
      const inProgress = send(url, '/mutate', ca, {
        ...post,
        agent: slowAgent,
        chunks: [body.slice(0, half), body.slice(half)],
        pauseMs: 300,
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closed = running.server.close();
      const answer = await inProgress;
      assert.equal(answer.status, 200);
      assert.equal(answer.json().response.uid, 'drain');
      assert.equal(answer.headers.connection, 'close');
      await closed;
    } finally {
      agent.destroy();
      slowAgent.destroy();
      await running.stop();
    }
  },
);
