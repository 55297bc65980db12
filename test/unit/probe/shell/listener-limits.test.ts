// The probe port against idle and slow peers: every phase of a connection has
// a deadline, and the connections are capped per source address, so that a
// Pod cannot hold the port (issue: idle TCP, slowloris headers, an idle echo
// connection and a 1 byte per 20 s transfer were all still open after 150 s).

import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Listener, type ListenerLimits, listen } from '../../../../src/probe/shell/listener.ts';

const LIMITS: ListenerLimits = {
  firstByteMs: 200,
  requestMs: 300,
  probeIdleMs: 300,
  bulkMs: 400,
  maxConnections: 64,
  maxPerSource: 4,
};
/** How long a test waits for the port to close a connection: far beyond every limit above, on a loaded host. */
const PATIENCE_MS = 8_000;

function open(port: number, localAddress = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Whether the port closed the socket within PATIENCE_MS, while `drip` kept sending (when given). */
function closedByPeer(socket: Socket, drip?: () => void): Promise<boolean> {
  return new Promise((resolve) => {
    const ticker = drip && setInterval(() => socket.destroyed || socket.write('', drip), 50);
    const timer = setTimeout(() => finish(false), PATIENCE_MS);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      clearInterval(ticker);
      socket.destroy();
      resolve(closed);
    };
    socket.on('error', () => {});
    // Read what comes, so that the end of the stream is seen behind it.
    socket.resume();
    socket.once('close', () => finish(true));
    socket.once('end', () => finish(true));
  });
}

describe('probe port: deadlines and caps', () => {
  let listener: Listener;
  before(async () => {
    listener = await listen('127.0.0.1', 0, (_request, response) => response.end('ok'), LIMITS);
  });
  after(() => listener.close());

  it('closes a connection that never sends a byte', async () => {
    assert.equal(await closedByPeer(await open(listener.port)), true);
  });

  it('closes a connection whose request headers trickle in (slowloris)', async () => {
    const socket = await open(listener.port);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    let n = 0;
    assert.equal(await closedByPeer(socket, () => socket.write(`X-${n++}: y\r\n`)), true);
  });

  it('closes an idle probe connection', async () => {
    const socket = await open(listener.port);
    socket.write(Buffer.from([0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
    assert.equal(await closedByPeer(socket), true);
  });

  it('cuts a throughput transfer that sends a byte now and then', async () => {
    const socket = await open(listener.port);
    socket.write(Buffer.from([0x02, 0, 0, 0x10, 0]));
    assert.equal(await closedByPeer(socket, () => socket.write(Buffer.of(0))), true);
  });

  it('answers a request with a body 405 and closes, without reading an endless body', async () => {
    const socket = await open(listener.port);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.write('POST /summary HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    const closed = await closedByPeer(socket, () => socket.write('4\r\nxxxx\r\n'));
    assert.equal(closed, true);
    assert.match(answer, /^HTTP\/1\.1 405/);
  });

  it('refuses connections beyond the cap per source, and still answers other sources', async () => {
    const held = await Promise.all(Array.from({ length: LIMITS.maxPerSource }, () => open(listener.port, '127.0.0.9')));
    try {
      const extra = await open(listener.port, '127.0.0.9');
      assert.equal(await closedByPeer(extra), true);
      assert.equal(held.filter((socket) => socket.destroyed).length, 0, 'the first ones are kept until their deadline');
      const response = await fetch(`http://127.0.0.1:${listener.port}/healthz`);
      assert.equal(await response.text(), 'ok');
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it('keeps an answered keep-alive connection usable for the next request', async () => {
    const socket = await open(listener.port);
    let answers = '';
    socket.on('data', (chunk: Buffer) => (answers += chunk.toString()));
    const ask = async () => {
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      for (let waited = 0; !answers.endsWith('ok') && waited < PATIENCE_MS; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await ask();
    answers = '';
    await ask();
    socket.destroy();
    assert.ok(answers.endsWith('ok'), answers);
  });
});
