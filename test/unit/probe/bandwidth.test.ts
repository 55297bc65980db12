// The bounded throughput probe: the transfer measures the bottleneck it goes
// through, the receiver refuses what it was not promised, the plan keeps the
// transfers per period fixed whatever the node count, and the writer's link
// carries the agents' median.

import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { aggregate } from '../../../src/probe/aggregate.ts';
import { BANDWIDTH_SENDERS, bandwidthPlan } from '../../../src/probe/candidates.ts';
import { BULK_MARK, MAX_BULK_BYTES, transfer } from '../../../src/probe/shell/bulk.ts';
import { listen } from '../../../src/probe/shell/listener.ts';
import { encodeSummary, parseSummary, withBandwidth } from '../../../src/probe/summary.ts';
import { writeReason } from '../../../src/probe/write-policy.ts';

const portOf = (server: Server) => {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
};

/** A server whose close also destroys the connections it still has. */
async function serve(handle: (socket: Socket) => void): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    handle(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: portOf(server),
    close() {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** A relay that forwards at most `bytesPerSecond`, pausing its reads: the bottleneck a transfer must see. */
function throttledRelay(targetPort: number, bytesPerSecond: number) {
  return serve((inbound) => {
    const outbound = connect(targetPort, '127.0.0.1');
    outbound.pipe(inbound);
    inbound.on('data', (chunk: Buffer) => {
      outbound.write(chunk);
      inbound.pause();
      setTimeout(() => inbound.resume(), (chunk.length / bytesPerSecond) * 1000);
    });
    inbound.on('end', () => outbound.end());
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
    inbound.on('close', () => outbound.destroy());
  });
}

describe('a bounded transfer', () => {
  it('measures the throughput of the path it takes: 16 MB/s through a throttled relay is at most about 0.13 Gbps', async () => {
    const listener = await listen('127.0.0.1', 0, (_request, response) => response.end());
    const relay = await throttledRelay(listener.port, 16 * 1024 * 1024);
    try {
      const direct = await transfer({ ip: '127.0.0.1', port: listener.port }, 4 * 1024 * 1024, 10_000, undefined);
      const throttled = await transfer({ ip: '127.0.0.1', port: relay.port }, 4 * 1024 * 1024, 10_000, undefined);
      const expected = (16 * 1024 * 1024 * 8) / 1e9;
      // Never above the bottleneck; below it by as much as the relay's timers fire late on a loaded host.
      assert.ok(throttled > expected * 0.2 && throttled < expected * 1.5, `throttled ${throttled} Gbps`);
      assert.ok(direct > throttled * 2, `direct ${direct} Gbps, throttled ${throttled} Gbps`);
    } finally {
      relay.close();
      await listener.close();
    }
  });

  it('is cut by the receiver when it asks for more than the cap, or sends more than it announced', async () => {
    const listener = await listen('127.0.0.1', 0, (_request, response) => response.end());
    const answerTo = (length: number, payload: number) =>
      new Promise<string>((resolve) => {
        const socket = connect(listener.port, '127.0.0.1', () => {
          const header = Buffer.alloc(5);
          header[0] = BULK_MARK;
          header.writeUInt32BE(length, 1);
          socket.write(Buffer.concat([header, Buffer.alloc(payload)]));
        });
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString('hex')));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(answer));
      });
    try {
      assert.equal(await answerTo(10, 10), '06', 'the promised bytes get their answer');
      assert.equal(await answerTo(MAX_BULK_BYTES + 1, 10), '', 'beyond the cap: closed, no answer');
      assert.equal(await answerTo(10, 20), '', 'more than announced: closed, no answer');
    } finally {
      await listener.close();
    }
  });

  it('rejects when nothing answers in time', async () => {
    const silent = await serve(() => undefined);
    try {
      await assert.rejects(transfer({ ip: '127.0.0.1', port: silent.port }, 1024, 200, undefined), /within 200 ms/);
    } finally {
      silent.close();
    }
  });
});

describe('the throughput plan', () => {
  const zones = ['a', 'b', 'c'];
  const nodes = zones.flatMap((zone) => Array.from({ length: 40 }, (_, i) => ({ node: `${zone}-${i}`, zone })));

  it('has BANDWIDTH_SENDERS agents per zone send once to each other zone, rotating with the period', () => {
    const senders = new Set<string>();
    for (let period = 0; period < 20; period++) {
      let transfers = 0;
      for (const self of nodes) {
        const plan = bandwidthPlan(
          self,
          nodes.filter((peer) => peer.node !== self.node),
          period,
        );
        if (plan.length === 0) continue;
        senders.add(self.node);
        assert.deepEqual(
          plan.map((peer) => peer.zone).sort(),
          zones.filter((zone) => zone !== self.zone),
        );
        transfers += plan.length;
      }
      assert.equal(transfers, BANDWIDTH_SENDERS * zones.length * (zones.length - 1));
    }
    assert.ok(senders.size > 20, `only ${senders.size} agents sent in 20 periods`);
  });
});

describe('bandwidth in the summaries and the status', () => {
  const buckets = new Map([[100, 5]]);
  const agent = (node: string, zone: string, to: string, gbps?: number) =>
    withBandwidth({ node, zone, zones: [{ zone: to, buckets }] }, new Map(gbps === undefined ? [] : [[to, gbps]]));

  it('takes the median of both directions per zone pair, and none where nothing was measured', () => {
    const status = aggregate([
      agent('a1', 'a', 'b', 9.5),
      agent('a2', 'a', 'b', 4),
      agent('b1', 'b', 'a', 10.123),
      agent('c1', 'c', 'a'),
    ]);
    assert.deepEqual(
      status.links.map((link) => [link.from, link.to, link.bandwidthGbps]),
      [
        ['a', 'b', 9.5],
        ['a', 'c', undefined],
      ],
    );
  });

  it('round-trips on the wire and refuses a bandwidth that is not a positive number', () => {
    const summary = agent('a1', 'a', 'b', 2.5);
    assert.deepEqual(parseSummary(JSON.parse(encodeSummary(summary))), summary);
    const bad = { node: 'n', zone: 'a', zones: [{ zone: 'b', buckets: [], bandwidthGbps: -1 }] };
    assert.equal(parseSummary(bad), 'bandwidthGbps is a positive number');
  });

  it('is written again when it moves beyond ±25%, appears or goes', () => {
    const policy = { minPeriodMs: 0, refreshMs: 60_000 };
    const status = (bandwidthGbps?: number) => ({
      links: [{ from: 'a', to: 'b', rttMs: 1, rttP99Ms: 2, samples: 10, ...(bandwidthGbps && { bandwidthGbps }) }],
      degradedNodes: [],
    });
    const last = { status: status(10), at: 0 };
    assert.equal(writeReason(last, status(11), 1000, policy), undefined);
    assert.equal(writeReason(last, status(7), 1000, policy), 'moved');
    assert.equal(writeReason(last, status(), 1000, policy), 'moved');
    assert.equal(writeReason({ status: status(), at: 0 }, status(10), 1000, policy), 'moved');
  });
});
