// discover on the small clusters most users run (and the real-node e2e cluster: 3–6 nodes in 3 zones):
// zones 1 ms ±10 % inside, 21 ms ±10 % across, every pair measured. The zones are one level, no pair is an
// outlier and no node is degraded; a zone of one node is a group; a node adding +5 ms to every round trip is
// found and taken out; a wrong zone label in a group of three is found.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discover } from '../../../src/discover/discover.ts';
import type { NodeZone, RttPair } from '../../../src/discover/types.ts';
import { mulberry32, pairF1 } from '../../../bench/discover-fleet.ts';

interface Cluster {
  readonly pairs: RttPair[];
  readonly names: string[];
  readonly zones: string[];
}

/** node-i in zone (i−1) mod 3 while that zone has room; `offsets` add to every round trip of a node. */
function smallCluster(zoneSizes: readonly number[], seed: number, offsets: Record<string, number> = {}): Cluster {
  const random = mulberry32(seed);
  const room = [...zoneSizes];
  const total = room.reduce((sum, count) => sum + count, 0);
  const names: string[] = [];
  const zones: string[] = [];
  for (let zone = 0; names.length < total; zone = (zone + 1) % room.length) {
    if (room[zone] === 0) continue;
    room[zone]!--;
    names.push(`node-${names.length + 1}`);
    zones.push(`zone-${'abcdef'[zone]}`);
  }
  const pairs: RttPair[] = [];
  for (let a = 0; a < total; a++)
    for (let b = a + 1; b < total; b++) {
      const base = zones[a] === zones[b] ? 1 : 21;
      const rttMs = base * (1 + 0.1 * (2 * random() - 1)) + (offsets[names[a]!] ?? 0) + (offsets[names[b]!] ?? 0);
      pairs.push({ a: names[a]!, b: names[b]!, rttMs });
    }
  return { pairs, names, zones };
}

const zonesOf = (cluster: Cluster, found: ReturnType<typeof discover>) =>
  pairF1(
    cluster.zones,
    cluster.names.map((name) => found.nodes[name]![0]!),
  );

const shapes: readonly (readonly number[])[] = [
  [2, 1, 1],
  [2, 2, 2],
  [3, 3, 3],
  [4, 4, 4],
  [2, 1],
];

for (const shape of shapes)
  for (const seed of [1, 2, 3]) {
    const count = shape.reduce((sum, size) => sum + size, 0);
    test(`${count} nodes in zones of ${shape.join(', ')} (seed ${seed}): the zones, no outlier, none degraded`, () => {
      const cluster = smallCluster(shape, seed);
      const found = discover(cluster.pairs);
      assert.equal(found.levels, 1);
      assert.equal(found.tiers[0]!.groups, shape.length);
      assert.equal(zonesOf(cluster, found), 1);
      assert.equal(found.pairs.outliers, 0);
      assert.deepEqual(found.degraded, []);
      assert.equal(found.tiers[0]!.confidence, 1);
    });
  }

test('a node alone in its zone is a group of its own', () => {
  const cluster = smallCluster([2, 1, 1], 4);
  const found = discover(cluster.pairs);
  const group = (name: string) => found.nodes[name]![0];
  assert.equal(group('node-1'), group('node-4'));
  assert.equal(new Set(['node-1', 'node-2', 'node-3'].map(group)).size, 3);
});

// Over 100 seeds at this noise it is found 94 times (its offset is ±0.7 ms from six far nodes' ±2 ms round
// trips); docs/discover.md says so. These seeds are three of the 94.
for (const seed of [1, 3, 4])
  test(`a node adding +5 ms to every round trip of a 9-node cluster is found and taken out (seed ${seed})`, () => {
    const cluster = smallCluster([3, 3, 3], seed, { 'node-5': 5 });
    const found = discover(cluster.pairs);
    assert.deepEqual(
      found.degraded.map((entry) => entry.node),
      ['node-5'],
    );
    assert.ok(Math.abs(found.degraded[0]!.offsetMs - 5) < 0.5, JSON.stringify(found.degraded));
    assert.equal(found.levels, 1);
    assert.equal(zonesOf(cluster, found), 1);
  });

test('a wrong zone label in a measured group of three is found', () => {
  const cluster = smallCluster([3, 3, 3], 5);
  const nodes: NodeZone[] = cluster.names.map((name, slot) => ({
    name,
    zone: name === 'node-4' ? 'zone-b' : cluster.zones[slot],
  }));
  const found = discover(cluster.pairs, nodes);
  assert.deepEqual(found.mislabeled, [
    { node: 'node-4', label: 'topology.kubernetes.io/zone', value: 'zone-b', measured: 'zone-a' },
  ]);
  assert.equal(found.zoneLabels?.level, 0);
});
