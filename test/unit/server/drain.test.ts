// Shutting down while connections are kept alive: an answer still in progress
// when the drain starts goes out with Connection: close, and a connection
// whose last answer was sent long before is closed as idle, without error.

import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { test } from 'node:test';
import { metricValue, podReview, send, startTestServer, until } from './https.ts';

test(
  'the drain closes the connection after the answer in progress, and the idle ones',
  { timeout: 60_000 },
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

      // Half the body now, the rest once the drain has started: in progress then, however slow the machine.
      const half = Math.floor(body.length / 2);
      let drainStarted!: () => void;
      const inProgress = send(url, '/mutate', ca, {
        ...post,
        agent: slowAgent,
        chunks: [body.slice(0, half), body.slice(half)],
        lastChunkAfter: new Promise<void>((resolve) => (drainStarted = resolve)),
      });
      await until(
        async () => (await metricValue(running, 'topogate_in_flight_requests')) === 1,
        'the request to be in flight',
      );
      const closed = running.server.close();
      drainStarted();
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

test(
  'busy keep-alive connections at the drain: each request sent is answered, the last with Connection: close',
  { timeout: 60_000 },
  async () => {
    const running = await startTestServer();
    const { url } = running.server;
    const ca = running.certificates.caCert;
    const body = JSON.stringify(podReview('busy'));
    const agents = Array.from({ length: 8 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    let draining: Promise<void> | undefined;
    let answered = 0;
    /** Back to back on one kept-alive connection until the server refuses a new one; at most 200 requests. */
    const client = async (agent: Agent) => {
      const outcomes: string[] = [];
      for (let count = 0; count < 200; count++) {
        try {
          const reply = await send(
            url,
            '/mutate',
            ca,
            { method: 'POST', headers: { 'content-type': 'application/json' }, agent },
            body,
          );
          assert.equal(reply.status, 200);
          answered++;
          if (answered === 40) draining = running.server.close();
          if (reply.headers.connection === 'close') outcomes.push('answered-closing');
        } catch (error) {
          outcomes.push((error as NodeJS.ErrnoException).code ?? String(error));
          break;
        }
      }
      return outcomes;
    };
    try {
      const outcomes = await Promise.all(agents.map(client));
      await draining;
      for (const seen of outcomes) assert.deepEqual(seen, ['answered-closing', 'ECONNREFUSED']);
    } finally {
      for (const agent of agents) agent.destroy();
      await running.stop();
    }
  },
);
