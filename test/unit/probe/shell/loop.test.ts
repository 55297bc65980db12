// The probe's shell loops without an API server: three agents (a listener
// serving probes and /summary, and a Prober) in two zones on loopback, and
// the Writer gathering their summaries into a status it hands to a recorder.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { NetworkStatus } from '../../../../src/probe/aggregate.ts';
import { intervalBounds } from '../../../../src/probe/interval.ts';
import type { Peer } from '../../../../src/probe/peers.ts';
import { type Listener, listen } from '../../../../src/probe/shell/listener.ts';
import { createProbeMetrics } from '../../../../src/probe/shell/metrics.ts';
import { Prober } from '../../../../src/probe/shell/prober.ts';
import type { StatusWriter } from '../../../../src/probe/shell/status-writer.ts';
import { Writer } from '../../../../src/probe/shell/writer.ts';
import { encodeSummary } from '../../../../src/probe/summary.ts';

const log = pino({ level: 'silent' });

describe('probe rounds and the writer, on loopback', () => {
  const listeners: Listener[] = [];
  const probers: Prober[] = [];
  after(async () => {
    for (const prober of probers) prober.stop();
    for (const listener of listeners) await listener.close();
  });

  it('gathers every agent’s summary into one link per zone pair and writes it', async () => {
    const nodes = [
      { name: 'a1', zone: 'a' },
      { name: 'a2', zone: 'a' },
      { name: 'b1', zone: 'b' },
    ];
    const peers: Peer[] = [];
    for (const node of nodes) {
      const prober = new Prober({
        localAddress: '127.0.0.1',
        bounds: intervalBounds(50),
        budget: 8,
        timeoutMs: 500,
        view: () => ({ peers: peers.filter((p) => p.node !== node.name), zone: node.zone }),
        node: node.name,
        reportPeersWithinMs: 10_000,
        metrics: createProbeMetrics(new Registry()),
        log,
      });
      const listener = await listen('127.0.0.1', 0, (_request, response) => {
        const summary = prober.summary();
        response.writeHead(summary ? 200 : 503).end(summary ? encodeSummary(summary) : '');
      });
      probers.push(prober);
      listeners.push(listener);
      peers.push({
        name: `probe-${node.name}`,
        node: node.name,
        ip: '127.0.0.1',
        port: listener.port,
        zone: node.zone,
      });
    }
    for (const prober of probers) prober.start();
    // Until every agent has sampled every zone it has peers in (a1 and a2: a and b; b1: a).
    const sampled = () => probers.map((p) => p.summary()?.zones.length ?? 0).join();
    for (let waited = 0; sampled() !== '2,2,1' && waited < 10_000; waited += 50) await sleep(50);

    const written: NetworkStatus[] = [];
    const status = { write: async (next: NetworkStatus) => void written.push(next) } as unknown as StatusWriter;
    const writer = new Writer({
      policy: { minPeriodMs: 100, refreshMs: 60_000 },
      gatherTimeoutMs: 1000,
      own: () => undefined,
      peers: () => peers,
      status,
      metrics: createProbeMetrics(new Registry()),
      log,
    });
    writer.lead();
    for (let waited = 0; written.length === 0 && waited < 10_000; waited += 50) await sleep(50);
    writer.follow();

    assert.ok(written.length >= 1, 'the first gather is written');
    const [first] = written;
    assert.deepEqual(
      first!.links.map((l) => `${l.from}-${l.to}`),
      ['a-a', 'a-b'],
    );
    // Round trips on loopback, answered within the probe timeout (never the timeout itself: loss is not an RTT).
    for (const link of first!.links)
      assert.ok(link.samples > 0 && link.rttMs > 0 && link.rttMs < 500, JSON.stringify(link));
    // Beside the zone pairs, every node pair, for topology derivation.
    const pairs = writer.pairs();
    assert.deepEqual(
      pairs.map(({ a, b }) => `${a}-${b}`),
      ['a1-a2', 'a1-b1', 'a2-b1'],
    );
    for (const pair of pairs) assert.ok(pair.rttMs > 0 && pair.rttMs < 500, JSON.stringify(pair));
  });
});
