import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregate } from '../../../src/probe/aggregate.ts';
import { add, bucketOf, quantileOf } from '../../../src/probe/histogram.ts';
import { intervalBounds, nextInterval } from '../../../src/probe/interval.ts';
import { peersOf, readProbePod, type Peer } from '../../../src/probe/peers.ts';
import { planRound } from '../../../src/probe/rotation.ts';
import { encodeSummary, parseSummary, type AgentSummary } from '../../../src/probe/summary.ts';
import { ZoneWindow } from '../../../src/probe/window.ts';
import { writeReason } from '../../../src/probe/write-policy.ts';

const histogram = (...values: number[]) => {
  const buckets = new Map<number, number>();
  for (const ms of values) add(buckets, bucketOf(ms));
  return buckets;
};
const repeat = (ms: number, count: number) => Array.from({ length: count }, () => ms);

describe('histogram', () => {
  it('reads quantiles back within 2% of the samples', () => {
    for (const ms of [0.013, 0.9, 20, 1234]) {
      const p50 = quantileOf(histogram(ms), 0.5)!;
      assert.ok(Math.abs(p50 - ms) / ms <= 0.02, `${ms} → ${p50}`);
    }
    const spread = histogram(...repeat(1, 98), 50, 50);
    assert.ok(Math.abs(quantileOf(spread, 0.5)! - 1) < 0.02);
    assert.ok(Math.abs(quantileOf(spread, 0.99)! - 50) < 1);
    assert.equal(quantileOf(new Map(), 0.5), undefined);
  });
});

describe('peers', () => {
  const pod = (name: string, node: string, phase = 'Running', ports?: unknown[]) => ({
    metadata: { name },
    spec: { nodeName: node, containers: [{ name: 'probe', ports }] },
    status: { phase, podIP: `10.0.0.${name.length}` },
  });

  it('takes Running Pods with an IP, the port named probe, and drops this node and zoneless nodes', () => {
    const pods = [
      pod('a', 'n1'),
      pod('bb', 'n2', 'Running', [
        { name: 'metrics', containerPort: 9090 },
        { name: 'probe', containerPort: 19471 },
      ]),
      pod('ccc', 'n3', 'Pending'),
      pod('dddd', 'self'),
      pod('eeeee', 'nozone'),
      { metadata: { name: 'x' }, spec: {}, status: { phase: 'Running' } },
      'not a pod',
    ].flatMap((p) => readProbePod(p) ?? []);
    const zones: Record<string, string> = { n1: 'z2', n2: 'z1', self: 'z1' };
    const peers = peersOf(pods, (node) => zones[node], 'self');
    assert.deepEqual(
      peers.map((p) => [p.name, p.zone, p.ip, p.port]),
      [
        ['bb', 'z1', '10.0.0.2', 19471],
        ['a', 'z2', '10.0.0.1', 9471],
      ],
    );
  });
});

describe('planRound', () => {
  const peer = (zone: string, i: number): Peer => ({
    name: `${zone}-${i}`,
    node: `${zone}-${i}`,
    ip: '',
    port: 1,
    zone,
  });
  const peers = [
    ...Array.from({ length: 5 }, (_, i) => peer('a', i)),
    peer('b', 0),
    ...Array.from({ length: 3 }, (_, i) => peer('c', i)),
  ];

  it('probes every zone each round, stays within the budget, and covers every peer as it rotates', () => {
    let cursors: ReadonlyMap<string, number> = new Map();
    const seen = new Set<string>();
    for (let round = 0; round < 3; round++) {
      const plan = planRound(peers, cursors, 4);
      assert.equal(plan.targets.length, 4);
      assert.deepEqual(new Set(plan.targets.map((t) => t.zone)), new Set(['a', 'b', 'c']));
      for (const t of plan.targets) seen.add(t.name);
      cursors = plan.cursors;
    }
    assert.equal(seen.size, peers.length);
  });

  it('gives every zone one probe even when there are more zones than budget', () => {
    assert.equal(planRound(peers, new Map(), 1).targets.length, 3);
    assert.equal(planRound(peers, new Map(), 100).targets.length, peers.length);
  });
});

describe('ZoneWindow', () => {
  const round = (window: ZoneWindow, ms: number, at: number) =>
    window.addRound(
      repeat(ms, 4).map((value, i) => ({ peer: `p${i}`, ms: value, at })),
      at,
    );

  it('follows a level shift after three rounds beyond the band, not half a window later', () => {
    const window = new ZoneWindow();
    for (let i = 0; i < 40; i++) assert.equal(round(window, 1, i), false);
    assert.equal(round(window, 20, 40), false, 'one round beyond the band is noise');
    assert.equal(round(window, 20, 41), true);
    assert.equal(window.median(), 1);
    assert.equal(round(window, 20, 42), true);
    assert.equal(window.median(), 20);
    assert.equal(window.size, 12);
    assert.equal(round(window, 20.4, 43), false, 'within 0.5 ms of the median: no change');
  });

  it('ages samples out and forgets a peer that dropped out', () => {
    const window = new ZoneWindow({
      maxSamples: 6,
      maxAgeMs: 10,
      shiftRounds: 3,
      band: { relative: 0.2, floor: 0.1 },
    });
    round(window, 1, 0);
    round(window, 1, 1);
    assert.equal(window.size, 6);
    window.trim(100);
    assert.equal(window.size, 0);
    round(window, 1, 100);
    window.drop('p0');
    assert.equal(window.size, 3);
  });
});

describe('nextInterval', () => {
  it('halves while changing down to a quarter, stretches while calm up to twice the base', () => {
    const bounds = intervalBounds(2000);
    assert.equal(nextInterval(2000, true, bounds), 1000);
    assert.equal(nextInterval(600, true, bounds), 500);
    assert.equal(nextInterval(2000, false, bounds), 2500);
    assert.equal(nextInterval(3900, false, bounds), 4000);
  });
});

describe('aggregate', () => {
  const agent = (node: string, zone: string, zones: Record<string, number[]>): AgentSummary => ({
    node,
    zone,
    zones: Object.entries(zones).map(([z, values]) => ({ zone: z, buckets: histogram(...values) })),
  });

  it('adds both directions of a zone pair into one link, own-zone links from == to', () => {
    const status = aggregate([
      agent('n1', 'a', { a: repeat(0.1, 10), b: repeat(5, 10) }),
      agent('n2', 'b', { a: [...repeat(5, 9), 40], b: repeat(0.1, 10) }),
      agent('n3', 'a', { a: repeat(0.1, 10) }),
    ]);
    assert.deepEqual(
      status.links.map((l) => [l.from, l.to, l.samples]),
      [
        ['a', 'a', 20],
        ['a', 'b', 20],
        ['b', 'b', 10],
      ],
    );
    const ab = status.links[1]!;
    assert.ok(Math.abs(ab.rttMs - 5) < 0.1, String(ab.rttMs));
    assert.ok(Math.abs(ab.rttP99Ms - 40) < 0.8, String(ab.rttP99Ms));
    assert.deepEqual(status.degradedNodes, []);
  });

  it('names a node whose own-zone RTT is far above the others of its zone', () => {
    const status = aggregate([
      agent('slow', 'a', { a: repeat(20, 10) }),
      agent('n2', 'a', { a: repeat(0.1, 10) }),
      agent('n3', 'a', { a: repeat(0.12, 10) }),
      agent('lonely', 'b', { b: repeat(30, 10) }),
    ]);
    assert.equal(status.degradedNodes.length, 1);
    const [slow] = status.degradedNodes;
    assert.equal(slow!.name, 'slow');
    assert.ok(Math.abs(slow!.rttMs - 20) < 0.4 && slow!.zoneRttMs < 0.13, JSON.stringify(slow));
  });
});

describe('summary wire form', () => {
  it('round-trips, and refuses what is not a summary', () => {
    const summary = { node: 'n1', zone: 'a', zones: [{ zone: 'b', buckets: histogram(1, 2, 2) }] };
    assert.deepEqual(parseSummary(JSON.parse(encodeSummary(summary))), summary);
    assert.equal(typeof parseSummary({ node: 'n1' }), 'string');
    assert.equal(typeof parseSummary({ node: 'n', zone: 'a', zones: [{ zone: 'b', buckets: [[1, -1]] }] }), 'string');
  });
});

describe('writeReason', () => {
  const policy = { minPeriodMs: 5000, refreshMs: 60_000 };
  const status = (rttMs: number, degraded: string[] = []) => ({
    links: [{ from: 'a', to: 'b', rttMs, rttP99Ms: rttMs * 2, samples: 10 }],
    degradedNodes: degraded.map((name) => ({ name, rttMs: 9, zoneRttMs: 1 })),
  });

  it('writes first, on a move beyond the band, on a new degraded node, and to refresh; never within the period', () => {
    assert.equal(writeReason(undefined, { links: [], degradedNodes: [] }, 0, policy), undefined);
    assert.equal(writeReason(undefined, status(1), 0, policy), 'first');
    const last = { status: status(1), at: 0 };
    assert.equal(writeReason(last, status(1.15), 10_000, policy), undefined);
    assert.equal(writeReason(last, status(1.5), 4_000, policy), undefined);
    assert.equal(writeReason(last, status(1.5), 10_000, policy), 'moved');
    assert.equal(writeReason(last, status(1, ['n9']), 10_000, policy), 'moved');
    assert.equal(writeReason(last, status(1.1), 60_000, policy), 'refresh');
  });
});
