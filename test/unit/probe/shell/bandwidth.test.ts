// The bounded throughput probe: the transfer measures the time its path takes (by a clock the test
// moves, never the machine's speed), the receiver refuses what it was not promised, the plan keeps the
// transfers per period fixed whatever the node count, and the writer's link
// carries the agents' median.

import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { aggregate } from '../../../../src/probe/aggregate.ts';
import { BANDWIDTH_SENDERS, bandwidthPlan } from '../../../../src/probe/candidates.ts';
import { BULK_MARK, MAX_BULK_BYTES, transfer } from '../../../../src/probe/shell/bulk.ts';
import { listen } from '../../../../src/probe/shell/listener.ts';
import { encodeSummary, parseSummary, withBandwidth } from '../../../../src/probe/summary.ts';
import { writeReason } from '../../../../src/probe/write-policy.ts';

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

/** A relay to the receiver that holds its answer: `answered` gives the function that passes it on. */
async function answerHoldingRelay(targetPort: number) {
  const answered = Promise.withResolvers<() => void>();
  const relay = await serve((inbound) => {
    const outbound = connect(targetPort, '127.0.0.1');
    inbound.pipe(outbound);
    outbound.once('data', (answer: Buffer) => answered.resolve(() => inbound.write(answer)));
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
    inbound.on('close', () => outbound.destroy());
  });
  return { ...relay, answered: answered.promise };
}

describe('a bounded transfer', () => {
  it('measures the bytes over the time from the connection to the answer, as the path delays it', async () => {
    const listener = await listen('127.0.0.1', 0, (_request, response) => response.end());
    const relay = await answerHoldingRelay(listener.port);
    const bytes = 4 * 1024 * 1024;
    let now = 1_000;
    try {
      const measured = transfer({ ip: '127.0.0.1', port: relay.port }, bytes, 60_000, undefined, () => now);
      // The receiver has counted every byte and answered; the path holds the answer for 2 s of the clock.
      const passOn = await relay.answered;
      now += 2_000;
      passOn();
      assert.equal(await measured, (bytes * 8) / 2 / 1e9);
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
