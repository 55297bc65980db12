// The writer against lying and endless peers: a summary counts only for the
// node it was fetched from, in that node's zone, and a body is read no
// further than a summary can be (issue: a peer claiming another node with
// 10^15 samples set a link to 0 ms; an endless body took the gathering agent
// from ~140 MB to 345 MB).

import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { NetworkStatus } from '../../../../src/probe/aggregate.ts';
import { add, bucketOf } from '../../../../src/probe/histogram.ts';
import type { Peer } from '../../../../src/probe/peers.ts';
import { createProbeMetrics } from '../../../../src/probe/shell/metrics.ts';
import type { StatusWriter } from '../../../../src/probe/shell/status-writer.ts';
import { MAX_SUMMARY_BYTES, Writer } from '../../../../src/probe/shell/writer.ts';
import type { AgentSummary } from '../../../../src/probe/summary.ts';

const servers: Server[] = [];
after(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

async function peerAnswering(name: string, zone: string, answer: (response: ServerResponse) => void): Promise<Peer> {
  const server = createServer((_request, response) => answer(response));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { name: `probe-${name}`, node: name, zone, ip: '127.0.0.1', port };
}

/** Gathers once as the holder; the status written and what the writer logged. */
async function gatherOnce(peers: readonly Peer[], own: AgentSummary) {
  const lines: string[] = [];
  const log = pino(
    { level: 'debug' },
    new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }),
  );
  const written: NetworkStatus[] = [];
  const status = { write: async (next: NetworkStatus) => void written.push(next) } as unknown as StatusWriter;
  const writer = new Writer({
    policy: { minPeriodMs: 60_000, refreshMs: 60_000 },
    gatherTimeoutMs: 20_000,
    own: () => own,
    peers: () => peers,
    status,
    metrics: createProbeMetrics(new Registry()),
    log,
  });
  writer.lead();
  for (let waited = 0; written.length === 0 && waited < 30_000; waited += 20) await sleep(20);
  writer.follow();
  return { written, lines, pairs: writer.pairs() };
}

const ownSummary: AgentSummary = {
  node: 'a0',
  zone: 'zone-a',
  zones: [{ zone: 'zone-b', buckets: new Map([[bucketOf(1), 10]]) }],
  peers: [{ node: 'b1', rttMs: 1 }],
};

describe('the writer trusts a summary only as far as its source', () => {
  it('leaves out a summary that speaks for another node, and one that claims another zone', async () => {
    const lie = (node: string, zone: string) => (response: ServerResponse) => {
      const buckets = new Map<number, number>();
      add(buckets, bucketOf(0.001), 200);
      response.end(
        JSON.stringify({ node, zone, zones: [{ zone: 'zone-b', buckets: [...buckets] }], peers: [['a0', 0.001]] }),
      );
    };
    const peers = [
      await peerAnswering('a1', 'zone-a', lie('a9', 'zone-a')),
      await peerAnswering('c1', 'zone-c', lie('c1', 'zone-a')),
      await peerAnswering('b1', 'zone-b', lie('b1', 'zone-b')),
    ];
    const { written, lines, pairs } = await gatherOnce(peers, ownSummary);
    const link = written[0]!.links.find((l) => l.from === 'zone-a' && l.to === 'zone-b')!;
    assert.equal(link.samples, 10, 'only the writer’s own samples count for zone-a ↔ zone-b');
    assert.ok(Math.abs(link.rttMs - 1) < 0.05, JSON.stringify(link));
    assert.ok(lines.some((line) => line.includes('speaks for node a9, but was fetched from node a1')));
    assert.ok(lines.some((line) => line.includes('says its zone is zone-a, but node c1 is in zone-c')));
    // b1 speaks for itself: its zone-b ↔ zone-b histogram counts, and its figure for the pair a0–b1 with a0's.
    assert.deepEqual(
      written[0]!.links.map((l) => `${l.from}-${l.to}`),
      ['zone-a-zone-b', 'zone-b-zone-b'],
    );
    assert.deepEqual(pairs, [{ a: 'a0', b: 'b1', rttMs: 0.501 }]);
  });

  it('cuts an endless summary body at MAX_SUMMARY_BYTES and goes on', async () => {
    let sent = 0;
    const endless = await peerAnswering('b2', 'zone-b', (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"node":"b2","zone":"zone-b","zones":[{"zone":"zone-a","buckets":[');
      const chunk = '[1,0],'.repeat(10_000);
      const pump = () => {
        while (!response.destroyed && sent < 1e9) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
      };
      response.once('close', () => (sent = Infinity));
      pump();
    });
    const { written, lines } = await gatherOnce([endless], ownSummary);
    assert.equal(written.length, 1, 'the gather ends and the status is written without that peer');
    assert.ok(
      lines.some((line) => line.includes(`an answer over ${MAX_SUMMARY_BYTES} bytes`)),
      lines.join(''),
    );
  });
});
