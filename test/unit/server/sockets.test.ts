// What an attacker on the network can hold, on a real server on 127.0.0.1:
// every socket the server stops serving is destroyed whatever the peer does
// (the peers here never close their side), in-flight slots come back, refusals
// at the HTTP level are Status bodies, and close() always ends.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect as tcpConnect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { defaultSlowBody } from '../../../src/server/overload.ts';
import { metricValue, postJson, startTestServer, until, type Running, podReview } from './https.ts';

const review = podReview;

interface Peer {
  readonly socket: Socket;
  /** Everything the server sent. */
  readonly received: () => string;
  /** Whether the server has closed its side. */
  readonly ended: () => boolean;
}

function watch(socket: Socket): Peer {
  let text = '';
  let ended = false;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  socket.on('end', () => (ended = true));
  socket.on('close', () => (ended = true));
  socket.on('error', () => (ended = true));
  return { socket, received: () => text, ended: () => ended };
}

/** A TCP connection that never sends a ClientHello and never closes its side. */
function silentPeer(running: Running): Peer {
  const { port } = new URL(running.server.url);
  return watch(tcpConnect({ host: '127.0.0.1', port: Number(port), allowHalfOpen: true }));
}

/** A TLS connection, handshake done, that sends `text` and then neither more nor its end. */
async function tlsPeer(running: Running, text: string): Promise<Peer> {
  const { port } = new URL(running.server.url);
  const socket: TLSSocket = tlsConnect({
    host: '127.0.0.1',
    port: Number(port),
    ca: running.certificates.caCert,
    servername: 'localhost',
    // Node honours it on TLS sockets too; its types leave it out.
    allowHalfOpen: true,
  } as ConnectionOptions);
  const peer = watch(socket);
  await once(socket, 'secureConnect');
  socket.write(text);
  return peer;
}

const openConnections = (running: Running) => metricValue(running, 'topogate_open_connections');

describe('connections the server stops serving are destroyed', () => {
  let running: Running;
  before(async () => {
    running = await startTestServer({
      limits: {
        handshakeTimeoutMs: 300,
        headersTimeoutMs: 500,
        requestTimeoutMs: 500,
        refusalLingerMs: 200,
        // Slow senders keep their slots until the request timeout here; slow-bodies.test.ts has them give way.
        slowBody: { ...defaultSlowBody, graceMs: 600_000 },
      },
      maxInFlight: 4,
    });
  });
  after(() => running.stop());

  test('a connection that never sends a ClientHello is destroyed at the handshake timeout', async () => {
    const peers = Array.from({ length: 20 }, () => silentPeer(running));
    await until(async () => (await openConnections(running)) === 20, 'the 20 connections to be open');
    await until(async () => peers.every((peer) => peer.ended()), 'the server to close every silent connection');
    await until(async () => (await openConnections(running)) === 0, 'no connection left open');
    assert.equal(await metricValue(running, 'topogate_tls_handshake_failures_total'), 20);
    for (const peer of peers) peer.socket.destroy();
  });

  test('of the open connections, only those past their handshake are counted as secured', async () => {
    const silent = Array.from({ length: 3 }, () => silentPeer(running));
    await until(async () => (await openConnections(running)) === 3, 'the 3 connections to be open');
    assert.equal(await metricValue(running, 'topogate_secured_connections'), 0);
    const secured = await Promise.all([tlsPeer(running, ''), tlsPeer(running, '')]);
    await until(async () => (await metricValue(running, 'topogate_secured_connections')) === 2, '2 secured');
    for (const peer of [...silent, ...secured]) peer.socket.destroy();
    await until(async () => (await metricValue(running, 'topogate_secured_connections')) === 0, 'none secured');
    await until(async () => (await openConnections(running)) === 0, 'no connection left open');
  });

  test('a request that times out gets a 408 Status and its socket is destroyed though the peer keeps it', async () => {
    const peer = await tlsPeer(
      running,
      'POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a',
    );
    await until(async () => peer.ended(), 'the server to close the timed-out connection');
    assert.match(peer.received(), /^HTTP\/1\.1 408 /);
    const body = JSON.parse(peer.received().split('\r\n\r\n')[1] ?? '');
    assert.deepEqual(
      { kind: body.kind, code: body.code, reason: body.reason },
      { kind: 'Status', code: 408, reason: 'Timeout' },
    );
    await until(async () => (await openConnections(running)) === 0, 'no connection left open');
    peer.socket.destroy();
  });

  test('slow senders holding every in-flight slot give them back when their requests time out', async () => {
    const head =
      'POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n';
    const slow = await Promise.all(Array.from({ length: 4 }, () => tlsPeer(running, `${head}{"apiVersion":`)));
    await until(
      async () => (await metricValue(running, 'topogate_in_flight_requests')) === 4,
      'the slow senders to hold every slot',
    );
    const refused = await postJson(running.server.url, running.certificates.caCert, review('while-full'));
    assert.equal(refused.status, 429);
    await until(async () => slow.every((peer) => peer.ended()), 'the slow senders to be cut off');
    await until(
      async () => (await metricValue(running, 'topogate_in_flight_requests')) === 0,
      'the slow senders to give their slots back',
    );
    const answered = await postJson(running.server.url, running.certificates.caCert, review('after'));
    assert.equal(answered.status, 200, answered.text);
    assert.equal(answered.json().response.uid, 'after');
    for (const peer of slow) peer.socket.destroy();
  });
});

describe('refusals at the HTTP level are Status bodies', () => {
  let running: Running;
  before(async () => {
    running = await startTestServer({ limits: { refusalLingerMs: 200 } });
  });
  after(() => running.stop());

  const statusOf = async (request: string) => {
    const peer = await tlsPeer(running, request);
    await until(async () => peer.ended(), 'the server to answer and close');
    const [head = '', body = ''] = peer.received().split('\r\n\r\n');
    peer.socket.destroy();
    return {
      line: head.split('\r\n')[0],
      contentType: /content-type: ([^\r]+)/i.exec(head)?.[1],
      body: JSON.parse(body),
    };
  };

  test('two Content-Length headers (a smuggling attempt): 400 with a message', async () => {
    const answer = await statusOf(
      'POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    );
    assert.match(answer.line ?? '', /^HTTP\/1\.1 400 /);
    assert.equal(answer.contentType, 'application/json');
    assert.equal(answer.body.kind, 'Status');
    assert.equal(answer.body.code, 400);
    assert.match(answer.body.message, /Content-Length/);
  });

  test('Content-Length beside Transfer-Encoding: chunked: 400 with a message', async () => {
    const answer = await statusOf(
      'POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    assert.match(answer.line ?? '', /^HTTP\/1\.1 400 /);
    assert.equal(answer.body.code, 400);
    assert.equal(answer.body.reason, 'BadRequest');
  });

  test('headers over the limit: 431 with a message', async () => {
    const answer = await statusOf(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(answer.line ?? '', /^HTTP\/1\.1 431 /);
    assert.equal(answer.body.code, 431);
    assert.equal(answer.body.reason, 'RequestHeaderFieldsTooLarge');
  });

  test('an Expect other than 100-continue: 417 with a message', async () => {
    const answer = await statusOf(
      'POST /mutate HTTP/1.1\r\nHost: localhost\r\nExpect: teapot\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    assert.match(answer.line ?? '', /^HTTP\/1\.1 417 /);
    assert.equal(answer.body.code, 417);
    assert.match(answer.body.message, /teapot/);
  });
});

describe('the connection cap', () => {
  let running: Running;
  before(async () => {
    running = await startTestServer({ limits: { maxConnections: 5 } });
  });
  after(() => running.stop());

  test('connections past the cap are dropped at accept and counted; the ones held keep working', async () => {
    const held = Array.from({ length: 5 }, () => silentPeer(running));
    await until(async () => (await openConnections(running)) === 5, 'five connections to be open');
    const extra = silentPeer(running);
    await until(async () => extra.ended(), 'the sixth connection to be dropped');
    assert.equal(await metricValue(running, 'topogate_connections_dropped_total'), 1);
    assert.equal(held.filter((peer) => peer.ended()).length, 0);
    for (const peer of held) peer.socket.destroy();
    await until(async () => (await openConnections(running)) === 0, 'the held connections to close');
    const answered = await postJson(running.server.url, running.certificates.caCert, review('below-cap'));
    assert.equal(answered.status, 200);
    extra.socket.destroy();
  });
});

describe('close() always ends', () => {
  test('with a connection that never handshakes and never closes, close() resolves at once', async () => {
    const running = await startTestServer({ limits: { handshakeTimeoutMs: 60_000, shutdownGraceMs: 60_000 } });
    const peer = silentPeer(running);
    await until(async () => (await openConnections(running)) === 1, 'the connection to be open');
    const closed = running.stop().then(() => 'closed');
    const verdict = await Promise.race([closed, new Promise((done) => setTimeout(done, 5_000, 'hung'))]);
    assert.equal(verdict, 'closed');
    assert.equal(peer.ended(), true);
  });

  test('a request in flight at close() is answered with Connection: close; a stuck one is cut at the deadline', async () => {
    const running = await startTestServer({ limits: { shutdownGraceMs: 1_000 } });
    const body = JSON.stringify(review('in-flight'));
    const head = `POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const inFlight = await tlsPeer(running, `${head}${body.slice(0, 10)}`);
    const stuck = await tlsPeer(running, `${head}${body.slice(0, 10)}`);
    await until(
      async () => (await metricValue(running, 'topogate_in_flight_requests')) === 2,
      'two requests in flight',
    );
    const closed = running.stop().then(() => 'closed');
    inFlight.socket.write(body.slice(10));
    await until(async () => inFlight.ended(), 'the in-flight request to be answered and its connection closed');
    assert.match(inFlight.received(), /^HTTP\/1\.1 200 /);
    assert.match(inFlight.received(), /\r\nconnection: close\r\n/i);
    assert.match(inFlight.received(), /"uid":"in-flight"/);
    const verdict = await Promise.race([closed, new Promise((done) => setTimeout(done, 5_000, 'hung'))]);
    assert.equal(verdict, 'closed');
    assert.equal(stuck.ended(), true);
  });
});
