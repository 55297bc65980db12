// After a flood of connections is over, the server gives the freed native
// memory back (malloc_trim through node:ffi); a few closed connections do not
// make a flood, and a flood still going on is not trimmed (a trim stalls). How much comes back is the soak's figure (bench/soak.ts).

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { connect, type TLSSocket } from 'node:tls';
import { loadMallocTrim } from '../../../src/server/trim.ts';
import { metricValue, startTestServer, until, type Running } from './https.ts';

const intervalMs = 100;
const minClosed = 50;
let running: Running;
before(async () => {
  running = await startTestServer({ floodTrim: { intervalMs, minClosed } });
});
after(() => running.stop());

async function openTls(count: number) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const socket = connect({
        host: '127.0.0.1',
        port: running.server.port,
        ca: running.certificates.caCert,
        servername: 'localhost',
      });
      await once(socket, 'secureConnect');
      return socket;
    }),
  );
}

async function close(sockets: readonly TLSSocket[]): Promise<void> {
  await Promise.all(sockets.map((socket) => (socket.destroy(), once(socket, 'close'))));
}

const openAndClose = async (count: number) => close(await openTls(count));

const trims = () => metricValue(running, 'topogate_memory_trims_total');

test('the pinned Node on glibc can call malloc_trim', () => {
  const mallocTrim = loadMallocTrim();
  assert.equal(typeof mallocTrim, 'function');
  assert.ok([0, 1].includes(mallocTrim!(0n)), 'malloc_trim answers whether it released memory');
});

test('a few closed connections are no flood: nothing is trimmed', async () => {
  await openAndClose(10);
  await new Promise((done) => setTimeout(done, 3 * intervalMs));
  assert.equal(await trims(), 0);
});

test('while a flood holds connections nothing is trimmed; once it is over the memory is given back, once', async () => {
  const held = await openTls(minClosed);
  await openAndClose(minClosed + 10);
  await new Promise((done) => setTimeout(done, 3 * intervalMs));
  assert.equal(await trims(), 0, 'no trim (a stall) while the flood goes on');
  await close(held);
  await until(async () => (await trims()) === 1, 'a trim after the flood');
  await new Promise((done) => setTimeout(done, 3 * intervalMs));
  assert.equal(await trims(), 1, 'no trim while nothing more closes');
});

test("the flood's trim collects V8's heap first, so what the closed sockets' objects held is given back too", async () => {
  // References to this test's own sockets only, dropped once they close: collected by the next full collection.
  const closedSockets = await (async () => {
    const sockets = await openTls(minClosed + 10);
    await close(sockets);
    return sockets.map((socket) => new WeakRef(socket));
  })();
  const before = await trims();
  await until(async () => (await trims()) === before + 1, 'a trim after the flood');
  assert.equal(
    closedSockets.filter((socket) => socket.deref() !== undefined).length,
    0,
    'a full collection ran with the trim',
  );
});
