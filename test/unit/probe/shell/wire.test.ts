import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { PeerConnection } from '../../../../src/probe/shell/connection.ts';
import { listen } from '../../../../src/probe/shell/listener.ts';

// Timeouts that a probe should meet are generous bounds (a loaded machine connects late); the one that
// must expire runs on a connection already made, so it times the missing answer alone.
const AMPLE_MS = 10_000;

describe('probe wire: one port for probe frames and HTTP', () => {
  it('answers probes on a kept connection sent from the given address, and HTTP beside them', async () => {
    const listener = await listen('127.0.0.1', 0, (_request, response) => response.end('http ok'));
    const connection = new PeerConnection('127.0.0.1', listener.port, '127.0.0.2');
    try {
      const first = await connection.probe(AMPLE_MS);
      const second = await connection.probe(AMPLE_MS);
      assert.ok('rttMs' in first && 'rttMs' in second, JSON.stringify([first, second]));
      assert.ok(first.rttMs > 0 && first.rttMs < AMPLE_MS);
      assert.equal(await (await fetch(`http://127.0.0.1:${listener.port}/any`)).text(), 'http ok');
    } finally {
      connection.close();
      await listener.close();
    }
  });

  it('sends from the local address it is given, so the peer sees the prober as the source', async () => {
    const sources: string[] = [];
    const echo = createServer((socket) => {
      sources.push(socket.remoteAddress ?? '');
      socket.on('data', (chunk) => socket.write(chunk));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const address = echo.address();
    const connection = new PeerConnection(
      '127.0.0.1',
      typeof address === 'object' && address ? address.port : 0,
      '127.0.0.3',
    );
    try {
      assert.ok('rttMs' in (await connection.probe(AMPLE_MS)));
      assert.deepEqual(sources, ['127.0.0.3']);
    } finally {
      connection.close();
      echo.close();
    }
  });

  it('a probe whose timeout is used up before it can send counts as loss, without a negative timer', async () => {
    const listener = await listen('127.0.0.1', 0, (_request, response) => response.end());
    const connection = new PeerConnection('127.0.0.1', listener.port, undefined);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      assert.ok('rttMs' in (await connection.probe(AMPLE_MS)), 'the connection is made and kept');
      const spent = await connection.probe(0);
      assert.ok('lost' in spent, JSON.stringify(spent));
      assert.match(spent.lost, /no time left of 0ms/);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
      connection.close();
      await listener.close();
    }
  });

  it('reports a peer that does not answer as loss, not as a round trip', async () => {
    // Echoes the first probe frame, as the listener answers it, and then nothing more.
    const fallsSilent = createServer((socket) => socket.once('data', (chunk) => socket.write(chunk)));
    await new Promise<void>((resolve) => fallsSilent.listen(0, '127.0.0.1', resolve));
    const address = fallsSilent.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const connection = new PeerConnection('127.0.0.1', port, undefined);
    try {
      assert.ok('rttMs' in (await connection.probe(AMPLE_MS)), 'the answered probe: the connection is made');
      const result = await connection.probe(100);
      assert.ok('lost' in result, JSON.stringify(result));
      assert.match(result.lost, /no answer within 100ms/);
      const refused = await new PeerConnection('127.0.0.1', 1, undefined).probe(100);
      assert.ok('lost' in refused);
    } finally {
      connection.close();
      fallsSilent.close();
    }
  });
});
