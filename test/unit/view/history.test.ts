// What the view keeps of the last hour: a pair's RTT at each new measurement,
// at most one sample per interval, nothing older than the hour; the leader's
// and the degraded nodes' changes, bounded.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { history, horizonMs, maxEvents, sampleEveryMs } from '../../../src/view/history.ts';
import { NOW, objects, snapshot } from './cluster.ts';

test('a sample at each new measurement, one per interval at most, none older than the hour', () => {
  const seen = history();
  assert.equal(seen.observe(snapshot(NOW - 1000, 0.4), NOW), true);
  assert.equal(seen.observe(snapshot(NOW - 1000, 9), NOW + 20_000), false, 'the same observedAt: no new measurement');
  assert.equal(seen.observe(snapshot(NOW + 1000, 0.6), NOW + 1000), false, 'within the interval');
  assert.equal(seen.observe(snapshot(NOW + 30_000, 0.8), NOW + 30_000), true);
  assert.deepEqual(seen.pairs(), [['a', 'b']], 'declared links are not a trend');
  assert.deepEqual(
    seen.series('b', 'a', NOW + 30_000).map((s) => [s.at - NOW, s.p50Ms, s.p99Ms]),
    [
      [0, 0.4, 1.5],
      [30_000, 0.8, 1.5],
    ],
  );
  for (let minute = 1; minute <= 70; minute++)
    seen.observe(snapshot(NOW + minute * 60_000, minute), NOW + minute * 60_000);
  const series = seen.series('a', 'b', NOW + 70 * 60_000);
  assert.equal(series.length, 61, 'an hour of one sample a minute, both ends in');
  assert.ok(series[0]!.at >= NOW + 70 * 60_000 - horizonMs);
  assert.ok(sampleEveryMs <= 60_000);
});

test('the etcd leader and the degraded nodes: changes only, newest first, bounded', () => {
  const seen = history();
  const withLeader = (leader: string | undefined, degraded: string[]) =>
    buildSnapshot(
      objects().map((object) => {
        if (object.kind !== 'NetworkTopology') return object;
        const status = object['status'] as Record<string, unknown>;
        return {
          ...object,
          status: { ...status, degradedNodes: degraded.map((name) => ({ name, rttMs: 5, zoneRttMs: 0.2 })) },
        };
      }),
      { now: NOW },
    );
  const sameLeader = withLeader(undefined, ['a-2']);
  seen.observe(sameLeader, NOW);
  assert.deepEqual(seen.events(), [], 'the first look is the baseline');
  seen.observe(withLeader(undefined, ['a-1']), NOW + 1000);
  assert.deepEqual(
    seen.events().map((e) => [e.kind, e.text]),
    [
      ['recovered', 'a-2'],
      ['degraded', 'a-1'],
    ],
  );
  for (let i = 0; i < 200; i++) seen.observe(withLeader(undefined, i % 2 ? ['a-1'] : ['a-2']), NOW + 2000 + i);
  assert.equal(seen.events().length, maxEvents);
});
