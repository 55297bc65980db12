import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NodeFacts, PlacedPod, Scenario } from '../../../../bench/placement/metrics.ts';
import { gangsThatFitRacks, gpuFits, placementMetrics, weightedQuantile } from '../../../../bench/placement/metrics.ts';

const H100 = 81559;
const nodes = new Map<string, NodeFacts>(
  (
    [
      {
        name: 'n1',
        zone: 'a',
        rack: 'r1',
        gpuMemoryMiB: H100,
        numaCells: [
          { name: 'c0', available: { cpu: 4, gpu: 2 } },
          { name: 'c1', available: { cpu: 4, gpu: 2 } },
        ],
      },
      // Two free GPUs, but one in each cell.
      {
        name: 'n2',
        zone: 'b',
        rack: 'r2',
        gpuMemoryMiB: H100,
        numaCells: [
          { name: 'c0', available: { cpu: 8, gpu: 1 } },
          { name: 'c1', available: { cpu: 8, gpu: 1 } },
        ],
      },
      // Room in one cell, but a 40 GB GPU.
      {
        name: 'n3',
        zone: 'a',
        rack: 'r1',
        gpuMemoryMiB: 40960,
        numaCells: [{ name: 'c0', available: { cpu: 8, gpu: 4 } }],
      },
    ] satisfies NodeFacts[]
  ).map((n) => [n.name, n]),
);
const network = { links: [{ from: 'a', to: 'b', rttMs: 2 }], intraZoneRttMs: 0.1 };

const pod = (name: string, workload: string, node: string | undefined, requests = {}): PlacedPod => ({
  name,
  workload,
  node,
  requests,
});
const gpu = { cpu: 4, gpu: 2 };
const pods = [
  pod('web-1', 'web', 'n1'),
  pod('web-2', 'web', 'n2'),
  pod('db-1', 'db', 'n3'),
  pod('g-1', 'g', 'n1', gpu),
  pod('g-2', 'g', 'n3', gpu),
  pod('h-1', 'h', 'n1', gpu),
  pod('h-2', 'h', 'n2', gpu),
  pod('batch-1', 'batch', undefined),
];
const scenario: Scenario = {
  pods,
  edges: [
    { from: 'web', to: 'db', callsPerSecond: 10, bytesPerCall: 1000 },
    { from: 'web', to: 'zone:b', callsPerSecond: 2, bytesPerCall: 500 },
    { from: 'batch', to: 'db', callsPerSecond: 3, bytesPerCall: 1 },
  ],
  gpuNeeds: [
    { workload: 'g', minGpuMemoryMiB: 80000 },
    { workload: 'h', minGpuMemoryMiB: 80000 },
  ],
  gangs: ['g', 'h'],
};

describe('placementMetrics on a graph small enough to work out by hand', () => {
  const metrics = placementMetrics(scenario, nodes, network);

  test('RTT per call, weighted by rate: web→db splits 5 a→a (0.1 ms) and 5 b→a (2 ms); web→zone:b 1 a→b, 1 b→b', () => {
    assert.equal(metrics.meanRttMs?.toFixed(6), ((5 * 0.1 + 5 * 2 + 1 * 2 + 1 * 0.1) / 12).toFixed(6));
    assert.equal(metrics.p99RttMs, 2);
    assert.equal(metrics.crossZoneCallShare, 0.5);
  });

  test('cross-zone bytes: 5 calls of 1000 B from b to a, 1 of 500 B from a to b', () => {
    assert.equal(metrics.crossZoneBytesPerSecond, 5500);
  });

  test('calls of a workload with no bound replica are unserved, not counted as 0 ms', () => {
    assert.equal(metrics.unservedCallShare, 3 / 15);
  });

  test('pending, gangs in one rack, workloads across zones', () => {
    assert.equal(metrics.pods, 8);
    assert.equal(metrics.pendingShare, 1 / 8);
    assert.equal(metrics.gangsInOneRackShare, 0.5, 'g is all in r1, h is in r1 and r2');
    assert.equal(metrics.multiZoneWorkloadShare, 1, 'web spans zones; the gangs g and h are judged by racks instead');
  });

  test('GPU fit: one right fit, a cell taken by an earlier Pod, a small GPU, a split node', () => {
    assert.deepEqual(gpuFits(pods, scenario.gpuNeeds, nodes), [true, false, true, false]);
    assert.equal(metrics.gpuFitShare, 0.5);
  });

  test('a third gang Pod on n1 finds both cells taken', () => {
    const more = [...pods, pod('g-3', 'g', 'n1', gpu)];
    assert.deepEqual(gpuFits(more, scenario.gpuNeeds, nodes), [true, false, true, false, false]);
  });
});

test('a workload calling itself never calls the same Pod: h-1 (a) and h-2 (b) only call each other', () => {
  const metrics = placementMetrics(
    { pods, edges: [{ from: 'h', to: 'h', callsPerSecond: 4, bytesPerCall: 100 }], gpuNeeds: [], gangs: [] },
    nodes,
    network,
  );
  assert.equal(metrics.meanRttMs, 2);
  assert.equal(metrics.crossZoneBytesPerSecond, 400);
  assert.equal(metrics.gpuFitShare, null);
  assert.equal(metrics.gangsInOneRackShare, null);
});

test('a zone pair with no RTT known is an error, not a silent 0', () => {
  assert.throws(
    () =>
      placementMetrics(
        { pods, edges: [{ from: 'web', to: 'zone:c', callsPerSecond: 1, bytesPerCall: 1 }], gpuNeeds: [], gangs: [] },
        nodes,
        network,
      ),
    /no RTT known between a and c/,
  );
});

test('weightedQuantile: the smallest value whose cumulative weight reaches the share', () => {
  const values = [
    { value: 3, weight: 1 },
    { value: 1, weight: 97 },
    { value: 2, weight: 2 },
  ];
  assert.equal(weightedQuantile(values, 0.5), 1);
  assert.equal(weightedQuantile(values, 0.98), 2);
  assert.equal(weightedQuantile(values, 0.99), 2);
  assert.equal(weightedQuantile(values, 0.995), 3);
  assert.equal(weightedQuantile([], 0.99), null);
});

test('gangsThatFitRacks: whole Pods per node, summed per rack, whole gangs per rack', () => {
  // r1: n1 holds 2 Pods of (cpu 4, gpu 2) (8 cpu, 4 GPUs), n3 holds 2 (8 cpu, 4 GPUs): 4. r2: n2 holds 1 (2 GPUs).
  assert.equal(gangsThatFitRacks(nodes.values(), gpu, 4), 1);
  assert.equal(gangsThatFitRacks(nodes.values(), gpu, 2), 2);
  assert.equal(
    gangsThatFitRacks(nodes.values(), { cpu: 4, gpu: 3 }, 1),
    2,
    'n1 and n3 hold one such Pod each, n2 none',
  );
});
