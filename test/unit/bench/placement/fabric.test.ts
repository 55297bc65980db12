// The peer comparison's fabric, trace and metrics, by hand: the fabric's size
// and its mislabelled nodes, the waves each arm creates, and the call model
// (PreferSameZone routing by labels, round trips by where nodes really are).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { FabricNode, Place } from '../../../../bench/placement/fabric.ts';
import { buildFabric, FABRIC_RTT_MS, MISLABELLED } from '../../../../bench/placement/fabric.ts';
import type { FabricPod } from '../../../../bench/placement/fabric-metrics.ts';
import { crossZoneFloor, fabricMetrics, fabricPod } from '../../../../bench/placement/fabric-metrics.ts';
import { RACK, ZONE } from '../../../../bench/placement/fleet.ts';
import { parseServiceGraph } from '../../../../bench/placement/graph.ts';
import { callDepths, GANG_SIZES, planTrace, TRAIN_NAMESPACE } from '../../../../bench/placement/trace.ts';
import type { TraceWorkload } from '../../../../bench/placement/trace.ts';
import { RUN_LABEL } from '../../../../bench/placement/workloads.ts';

const graph = parseServiceGraph(
  JSON.parse(readFileSync(new URL('../../../../bench/data/online-boutique.json', import.meta.url), 'utf8')),
);

test('the fabric: 2 zones × 2 blocks × 4 racks × 8 CPU nodes, 32 GPU nodes, a few with the wrong zone label', () => {
  const fabric = buildFabric(1);
  assert.equal(fabric.nodes.length, 160);
  assert.equal(fabric.nodes.filter((n) => !n.gpu).length, 128);
  const racks = new Map<string, number>();
  for (const node of fabric.nodes.filter((n) => !n.gpu))
    racks.set(node.labelled.rack, (racks.get(node.labelled.rack) ?? 0) + 1);
  assert.deepEqual(new Set(racks.values()), new Set([8]));
  assert.equal(racks.size, 16);
  const moved = fabric.nodes.filter((n) => n.truth.zone !== n.labelled.zone);
  assert.equal(moved.length, MISLABELLED);
  assert.ok(moved.every((n) => !n.gpu));
  const status = fabric.networkStatus as { degradedNodes: { name: string }[] };
  assert.deepEqual(status.degradedNodes.map((n) => n.name).sort(), moved.map((n) => n.name).sort());
  const labels = fabric.fakeNodes.find((n) => n.name === moved[0]!.name)!.labels!;
  assert.equal(labels[ZONE], moved[0]!.labelled.zone, 'the Node keeps its old zone label');
  assert.deepEqual(buildFabric(1), fabric, 'the same seed, the same fabric');
  assert.notDeepEqual(buildFabric(2).nodes, fabric.nodes);
});

test('callers come a wave before their callees', () => {
  const depths = callDepths(graph);
  assert.equal(depths.get('loadgenerator'), 0);
  assert.equal(depths.get('frontend'), 1);
  assert.equal(depths.get('cartservice'), 2);
  assert.equal(depths.get('redis-cart'), 3);
});

test('each arm writes what its own docs ask of a gang; the trace is the same otherwise', () => {
  const plans = {
    default: planTrace(1, 'default', graph, 230),
    upstreamTas: planTrace(1, 'upstreamTas', graph, 230),
    kueueTas: planTrace(1, 'kueueTas', graph, 230),
    topogate: planTrace(1, 'topogate', graph, 230),
  };
  const gangs = plans.default.workloads.filter((w) => w.gang);
  assert.ok(gangs.every((g) => (GANG_SIZES as readonly number[]).includes(g.replicas)));
  const asked = gangs.reduce((sum, g) => sum + g.replicas, 0);
  assert.ok(asked >= 0.6 * 230 && asked < 0.6 * 230 + 32, `${asked} GPUs asked`);
  assert.deepEqual(plans.upstreamTas.workloads, plans.default.workloads);
  assert.deepEqual(plans.topogate.edges, plans.default.edges);
  assert.deepEqual(
    plans.default.waves.slice(0, 5).map((w) => w.name),
    ['background', 'shops, call depth 0', 'shops, call depth 1', 'shops, call depth 2', 'shops, call depth 3'],
  );
  const gangWave = (arm: keyof typeof plans) => plans[arm].waves.find((w) => w.name.startsWith('gang-1 '))!;
  const [podGroup, deployment] = gangWave('upstreamTas').objects as any[];
  assert.equal(podGroup.kind, 'PodGroup');
  assert.deepEqual(podGroup.spec.schedulingConstraints, { topology: [{ key: RACK }] });
  assert.equal(podGroup.spec.schedulingPolicy.gang.minCount, deployment.spec.replicas);
  assert.deepEqual(deployment.spec.template.spec.schedulingGroup, { podGroupName: 'gang-1' });
  const topogate = (gangWave('topogate').objects as any[])[0];
  assert.equal(topogate.spec.template.metadata.annotations['topogate.dev/replicas'], String(topogate.spec.replicas));
  assert.deepEqual(plans.kueueTas.workloads, plans.default.workloads);
  // Kueue: the gang as a pod group of plain Pods, one queue, its size, one rack required.
  const kueuePods = gangWave('kueueTas').objects as any[];
  assert.equal(kueuePods.length, deployment.spec.replicas);
  assert.ok(kueuePods.every((pod) => pod.kind === 'Pod' && pod.metadata.namespace === TRAIN_NAMESPACE));
  assert.equal(new Set(kueuePods.map((pod) => pod.metadata.name)).size, kueuePods.length);
  assert.deepEqual(kueuePods[0].metadata.labels, {
    app: 'gang-1',
    [RUN_LABEL]: 'true',
    'kueue.x-k8s.io/queue-name': 'fabric',
    'kueue.x-k8s.io/pod-group-name': 'gang-1',
  });
  assert.deepEqual(kueuePods[0].metadata.annotations, {
    'kueue.x-k8s.io/pod-group-total-count': String(kueuePods.length),
    'kueue.x-k8s.io/podset-required-topology': RACK,
  });
  assert.equal(kueuePods[0].spec.containers[0].resources.requests['nvidia.com/gpu'], '1');
  const plain = (gangWave('default').objects as any[])[0];
  assert.equal(plain.spec.template.metadata.annotations, undefined);
  assert.equal(plain.spec.template.spec.schedulingGroup, undefined);
});

const place = (zone: string, rack: string): Place => ({ zone, block: `${zone}-b`, rack });
function node(name: string, truth: Place, labelled = truth, gpu = false): FabricNode {
  return { name, gpu, truth, labelled, cpuMilli: 4000, memoryBytes: 0, gpus: gpu ? 8 : 0 };
}
const NODES = new Map(
  [
    node('a1', place('a', 'ra1')),
    node('a2', place('a', 'ra2')),
    node('b1', place('b', 'rb1')),
    // Labelled zone a, really in zone b.
    node('m1', place('b', 'rb1'), place('a', 'ra1')),
    node('g1', place('a', 'ga'), place('a', 'ga'), true),
    node('g2', place('b', 'gb'), place('b', 'gb'), true),
  ].map((n) => [n.name, n]),
);
const pod = (name: string, workload: string, at: string | undefined, cpuMilli = 100, gpus = 0): FabricPod => ({
  name,
  workload,
  node: at,
  cpuMilli,
  gpus,
});
const W = (name: string, replicas: number, gang = false): TraceWorkload => ({
  namespace: 's',
  name,
  replicas,
  gang,
});
const EDGE = { from: 's/front', to: 's/cart', callsPerSecond: 100, bytesPerCall: 1000 };

test('PreferSameZone: a call stays in the caller’s labelled zone when an endpoint is there, else spreads', () => {
  const inZone = fabricMetrics(
    [pod('f1', 's/front', 'a1'), pod('c1', 's/cart', 'a1'), pod('c2', 's/cart', 'b1')],
    [W('front', 1), W('cart', 2)],
    [EDGE],
    NODES,
    new Map(),
  );
  assert.equal(inZone.meanRttMs, FABRIC_RTT_MS.node);
  assert.equal(inZone.crossZoneBytesPerSecond, 0);
  const spread = fabricMetrics(
    [pod('f1', 's/front', 'b1'), pod('c1', 's/cart', 'a1'), pod('c2', 's/cart', 'a2')],
    [W('front', 1), W('cart', 2)],
    [EDGE],
    NODES,
    new Map(),
  );
  assert.equal(spread.meanRttMs, FABRIC_RTT_MS.crossZone);
  assert.equal(spread.crossZoneBytesPerSecond, 100 * 1000);
  assert.equal(spread.haKept, 0, 'cart is in one zone');
});

test('a node whose zone label is wrong: routed as in-zone, really across zones', () => {
  const metrics = fabricMetrics(
    [pod('f1', 's/front', 'a1'), pod('c1', 's/cart', 'm1'), pod('c2', 's/cart', 'b1')],
    [W('front', 1), W('cart', 2)],
    [EDGE],
    NODES,
    new Map(),
  );
  assert.equal(metrics.crossZoneCallShare, 1);
  assert.equal(metrics.meanRttMs, FABRIC_RTT_MS.crossZone);
  assert.equal(metrics.podsOnMislabelledNodes, 1);
  assert.equal(metrics.haKept, 0, 'both replicas are really in zone b');
});

test('the floor: a one-replica callee of a caller across 2 zones takes one caller replica’s share across', () => {
  const toCache = { from: 's/cart', to: 's/cache', callsPerSecond: 90, bytesPerCall: 1000 };
  const workloads = [W('front', 1), W('cart', 3), W('cache', 1)];
  assert.equal(crossZoneFloor(workloads, [EDGE, toCache]), (90 / 3) * 1000, 'front is one replica; cart calls 1 of 3');
  // The best placement: two cart replicas beside the cache, one in the other zone; the metric agrees.
  const best = fabricMetrics(
    [
      pod('f1', 's/front', 'a1'),
      pod('c1', 's/cart', 'a1'),
      pod('c2', 's/cart', 'a2'),
      pod('c3', 's/cart', 'b1'),
      pod('k1', 's/cache', 'a1'),
    ],
    workloads,
    [EDGE, toCache],
    NODES,
    new Map(),
  );
  assert.equal(best.haKept, 1);
  assert.equal(best.crossZoneBytesPerSecond, best.crossZoneBytesFloor);
  assert.equal(crossZoneFloor([W('cart', 3), W('cache', 2)], [toCache]), 0, 'two replicas can cover both zones');
});

test('gangs in one rack, GPU racks left whole, and Pending Pods that had room', () => {
  const metrics = fabricMetrics(
    [
      pod('x1', 's/gx', 'g1', 4000, 1),
      pod('x2', 's/gx', 'g1', 4000, 1),
      pod('y1', 's/gy', 'g1', 4000, 1),
      pod('y2', 's/gy', undefined, 4000, 1),
      pod('z1', 's/web', undefined, 5000),
    ],
    [W('gx', 2, true), W('gy', 2, true), W('web', 1)],
    [],
    NODES,
    new Map([['g2', { cpuMilli: 0, gpus: 0 }]]),
  );
  assert.equal(metrics.gangsInOneRack, 0.5, 'gy has a Pending member');
  assert.equal(metrics.freeGpuRacks, 1, 'gb is untouched');
  assert.equal(metrics.pending, 2);
  assert.equal(metrics.pendingThatFits, 1, 'y2 fits a GPU node; z1 (5 cpu) fits no 4-cpu node');
  assert.equal(metrics.meanRttMs, null);
});

test('the trace’s gangs are in the training namespace', () => {
  const trace = planTrace(2, 'default', graph, 200);
  assert.ok(trace.workloads.filter((w) => w.gang).every((w) => w.namespace === TRAIN_NAMESPACE));
});

test('a Pod as the metrics read it: millicores of cpu, whole GPUs, summed over its containers', () => {
  const resources = (requests: Record<string, string>) => ({ name: 'c', resources: { requests } });
  const pod = fabricPod({
    metadata: { name: 'g-1', namespace: TRAIN_NAMESPACE, labels: { app: 'g' } },
    spec: { containers: [resources({ cpu: '4', 'nvidia.com/gpu': '1' }), resources({ cpu: '250m' })] },
  });
  assert.deepEqual(pod, { name: 'g-1', workload: `${TRAIN_NAMESPACE}/g`, node: undefined, cpuMilli: 4250, gpus: 1 });
  // Pending, it still fits a GPU node with a free GPU: counted as Pending that fits.
  const fabric = buildFabric(1);
  const gang = [{ namespace: TRAIN_NAMESPACE, name: 'g', replicas: 1, gang: true }];
  assert.equal(fabricMetrics([pod], gang, [], fabric.byName, new Map()).pendingThatFits, 1);
});
