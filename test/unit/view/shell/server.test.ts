// The view's listener: read-only routes, the snapshot as JSON, and the event
// stream that pushes the data again when it changes.

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import pino from 'pino';
import type { ViewData } from '../../../../src/view/data.ts';
import { startViewServer } from '../../../../src/view/shell/server.ts';

function get(
  url: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<{ status: number; type?: string; body: string; csp?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'],
          body,
          csp: res.headers['content-security-policy'] as string | undefined,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls until `seen` holds; fails after 5 s rather than hang. */
async function until(seen: () => boolean, what: string): Promise<void> {
  for (let tries = 0; !seen(); tries++) {
    if (tries > 500) assert.fail(`gave up waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 10));
  }
}

test('the page, its data, read-only, and updates pushed on change', async () => {
  let version = 1;
  const listeners = new Set<() => void>();
  const server = await startViewServer({
    host: '127.0.0.1',
    port: 0,
    log: pino({ level: 'silent' }),
    settleMs: 10,
    read: () => ({ snapshotVersion: version }) as unknown as ViewData,
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  });
  try {
    const page = await get(`${server.url}/`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<h2 id="rtt-h">Round-trip time between zones<\/h2>/);
    assert.match(page.csp ?? '', /default-src 'self'/);
    assert.deepEqual(JSON.parse((await get(`${server.url}/api/snapshot`)).body), { snapshotVersion: 1 });
    assert.equal((await get(`${server.url}/api/snapshot`, 'POST')).status, 405);
    assert.equal((await get(`${server.url}/mutate`)).status, 404);
    // DNS rebinding: a page at attacker.example resolved to 127.0.0.1 sends its own name as Host.
    for (const path of ['/', '/api/snapshot', '/api/events']) {
      const rebound = await get(`${server.url}${path}`, 'GET', { host: 'attacker.example:8080' });
      assert.equal(rebound.status, 421, path);
      assert.doesNotMatch(rebound.body, /snapshotVersion/);
    }
    assert.equal((await get(`${server.url}/api/snapshot`, 'GET', { host: 'localhost:8080' })).status, 200);

    const events: string[] = [];
    const stream = await new Promise<import('node:http').IncomingMessage>((resolve) =>
      request(`${server.url}/api/events`, (res) => resolve(res)).end(),
    );
    assert.equal(stream.headers['content-type'], 'text/event-stream');
    stream.on('data', (chunk: Buffer) => events.push(chunk.toString()));
    await until(() => events.join('').includes('"snapshotVersion":1'), 'the first event');
    // A GET's request object closes once read; the stream must outlive it.
    await new Promise((done) => setTimeout(done, 100));
    version = 2;
    for (const listener of listeners) listener();
    await until(() => events.join('').includes('"snapshotVersion":2'), 'the pushed update');
    assert.match(events.join(''), /event: snapshot\ndata: \{"snapshotVersion":2\}\n\n/);
    stream.destroy();
  } finally {
    await server.close();
  }
  assert.equal(listeners.size, 0, 'closing unsubscribes');
});
