// After a flood of connections is over, the server gives the freed native
// memory back (malloc_trim through node:ffi); a few closed connections do not
// make a flood, and a flood still going on is not trimmed (a trim stalls). How much comes back is the soak's figure (bench/soak.ts).
// The test runs the server's periodic check itself, once the server has seen the connections close: no sleeping in
// the hope that a timer fired.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { connect, type TLSSocket } from 'node:tls';
import { loadMallocTrim } from '../../../src/server/trim.ts';
import { metricValue, startTestServer, until, type Running } from './https.ts';

const minClosed = 50;
let running: Running;
let check = (): void => assert.fail('the server has not given its check');
before(async () => {
  const every = (_intervalMs: number, given: () => void) => ((check = given), () => {});
  running = await startTestServer({ floodTrim: { intervalMs: 60_000, minClosed, every } });
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

/** Waits until the server has seen all but `count` connections close (its own close, not the client's). */
const serverHolds = (count: number) =>
  until(async () => (await metricValue(running, 'topogate_open_connections')) === count, `${count} open connections`);

test('the pinned Node on glibc can call malloc_trim', () => {
  const mallocTrim = loadMallocTrim();
  assert.equal(typeof mallocTrim, 'function');
  assert.ok([0, 1].includes(mallocTrim!(0n)), 'malloc_trim answers whether it released memory');
});

test('a few closed connections are no flood: nothing is trimmed; enough more make one', async () => {
  await openAndClose(10);
  await serverHolds(0);
  check();
  assert.equal(await trims(), 0);
  // The positive control: the same check, once the closed connections reach a flood, trims.
  await openAndClose(minClosed - 10);
  await serverHolds(0);
  check();
  assert.equal(await trims(), 1);
});

test('while a flood holds connections nothing is trimmed; once it is over the memory is given back, once', async () => {
  const before = await trims();
  const held = await openTls(minClosed);
  await openAndClose(minClosed + 10);
  await serverHolds(minClosed);
  check();
  assert.equal(await trims(), before, 'no trim (a stall) while the flood goes on');
  await close(held);
  await serverHolds(0);
  check();
  assert.equal(await trims(), before + 1, 'a trim after the flood');
  check();
  assert.equal(await trims(), before + 1, 'no trim while nothing more closes');
});

test("the flood's trim collects V8's heap first, so what the closed sockets' objects held is given back too", async () => {
  // References to this test's own sockets only, dropped once they close: collected by the next full collection.
  const closedSockets = await (async () => {
    const sockets = await openTls(minClosed + 10);
    await close(sockets);
    return sockets.map((socket) => new WeakRef(socket));
  })();
  const before = await trims();
  await serverHolds(0);
  check();
  assert.equal(await trims(), before + 1, 'a trim after the flood');
  assert.equal(
    closedSockets.filter((socket) => socket.deref() !== undefined).length,
    0,
    'a full collection ran with the trim',
  );
});
