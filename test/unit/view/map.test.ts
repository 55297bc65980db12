// The view's map: zones → blocks → racks → nodes with their counts, node
// states, GPUs and control plane; measured links apart from declared; the
// derived tiers preferred to labels; aggregation above the node cap.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { nodeCap, topologyMap, type Region } from '../../../src/view/map.ts';
import { node, NOW, objects, snapshot } from './cluster.ts';

describe('the map of a small cluster', () => {
  const s = snapshot();
  const map = topologyMap(s, s.pods, NOW);

  it('nests zones, blocks and racks, with counts whole at every level', () => {
    assert.deepEqual(map.tiers, ['topogate.dev/block', 'topogate.dev/rack']);
    assert.equal(map.tierSource, 'labels');
    assert.equal(map.aggregated, false);
    const a = map.zones[0]!;
    assert.equal(a.name, 'a');
    assert.deepEqual(a.counts, {
      nodes: 3,
      schedulable: 2,
      cordoned: 1,
      notReady: 0,
      degraded: 1,
      gpus: 0,
      gpusFree: 0,
    });
    assert.deepEqual(
      a.regions!.map((block) => [block.name, block.counts.nodes, block.regions!.map((rack) => rack.name)]),
      [
        ['b1', 2, ['r1', 'r2']],
        ['b2', 1, ['r3']],
      ],
    );
  });

  it('marks each node: state, degraded, mislabeled, GPUs with what is free, the control plane and the etcd leader', () => {
    const nodes = (zone: Region): Region['nodes'] =>
      zone.regions!.flatMap((block) => block.regions!.flatMap((rack) => rack.nodes!));
    const [a, b] = map.zones;
    assert.deepEqual(nodes(a!), [
      { name: 'a-1', state: 'schedulable', controlPlane: ['etcd'] },
      { name: 'a-2', state: 'schedulable', degradedRttMs: 4.1 },
      {
        name: 'a-3',
        state: 'cordoned',
        mislabeled: { label: 'topology.kubernetes.io/zone', value: 'a', measured: 'b' },
      },
    ]);
    assert.deepEqual(nodes(b!), [
      { name: 'b-1', state: 'schedulable', gpus: { product: 'NVIDIA-H100', count: 4, free: 2 } },
    ]);
    assert.equal(b!.counts.gpusFree, 2);
  });

  it('gives each pair of zones once: the measured link with p99 and bandwidth, the declared one apart', () => {
    assert.deepEqual(map.network, {
      domainLabel: 'topology.kubernetes.io/zone',
      domains: ['a', 'b', 'c'],
      links: [
        { from: 'a', to: 'b', source: 'measured', p50Ms: 0.4, p99Ms: 1.5, bandwidthGbps: 40 },
        { from: 'a', to: 'c', source: 'declared', p50Ms: 3 },
      ],
      ageSeconds: 5,
    });
  });
});

describe('tiers and size', () => {
  it('prefers the tiers discover derived (coarsest first) to the labelled blocks and racks', () => {
    const derived = objects().map((object) =>
      object.kind === 'Node'
        ? {
            ...object,
            metadata: {
              ...object.metadata,
              labels: { ...object.metadata!.labels, 'topogate.dev/tier-1': 'g1', 'topogate.dev/tier-2': 'g2' },
            },
          }
        : object,
    );
    const s = buildSnapshot(derived, { now: NOW });
    const map = topologyMap(s, s.pods, NOW);
    assert.equal(map.tierSource, 'derived');
    assert.deepEqual(map.tiers, ['topogate.dev/tier-2', 'topogate.dev/tier-1']);
  });

  it('draws zones straight to nodes when no tier is known', () => {
    const s = buildSnapshot([node('x-1', 'x'), node('x-2', 'x')], { now: NOW });
    const map = topologyMap(s, s.pods, NOW);
    assert.equal(map.tierSource, 'none');
    assert.deepEqual(
      map.zones[0]!.nodes!.map((n) => n.name),
      ['x-1', 'x-2'],
    );
    assert.equal(map.network, undefined);
  });

  it('aggregates 5,000 nodes: whole counts, only the notable nodes listed', () => {
    const many = Array.from({ length: 5000 }, (_, i) =>
      node(`n-${i}`, `z${i % 4}`, {}, { unschedulable: i % 1000 === 0 }),
    );
    const s = buildSnapshot(many, { now: NOW });
    const map = topologyMap(s, s.pods, NOW);
    assert.equal(map.aggregated, true);
    assert.ok(5000 > nodeCap);
    assert.deepEqual(
      map.zones.map((zone) => zone.counts.nodes),
      [1250, 1250, 1250, 1250],
    );
    const listed = map.zones.flatMap((zone) => zone.nodes!);
    assert.deepEqual(listed.map((n) => n.name).sort(), ['n-0', 'n-1000', 'n-2000', 'n-3000', 'n-4000']);
    assert.ok(JSON.stringify(map).length < 10_000, 'a page, not the cluster');
  });
});
