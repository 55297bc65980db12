// The decision memo must be invisible: a compiled set that has already decided
// other Pods decides each Pod exactly as a freshly compiled one does.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod, Toleration } from '../../../src/kube/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { parseQuantity } from '../../../src/kube/quantity.ts';
import { placementNodes, schedulableFor } from '../../../src/policy/satisfiability.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { clusterObjects, NOW, OPTIONS, pod, policy } from './engine-cluster.ts';

const ZONE = 'topology.kubernetes.io/zone';
const infra: Toleration = { key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' };
const gpuRequest = (count: number) => ({ containers: [{ name: 'c', image: 'x', resources: { limits: { 'nvidia.com/gpu': String(count) } } }] });
const cpuRequest = (cpu: string) => ({ containers: [{ name: 'c', image: 'x', resources: { limits: { cpu, memory: '4Gi' } } }] });

/** Pods that differ in one placement input each, so a key that missed one would hand one Pod another's nodes. */
const PODS: readonly Pod[] = [
  pod(),
  pod({ tolerations: [infra] }),
  pod({ nodeSelector: { disk: 'nvme' } }),
  pod({ nodeSelector: { disk: 'ssd' } }),
  pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['zone-c'] }] }] } } }, tolerations: [infra] }),
  pod({ topologySpreadConstraints: [{ topologyKey: 'disk', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] }),
  pod({ topologySpreadConstraints: [{ topologyKey: 'disk', maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }] }),
  pod(gpuRequest(4)),
  pod(gpuRequest(8)),
  pod(cpuRequest('2')),
  pod({ ...cpuRequest('2'), nodeSelector: { disk: 'ssd' } }),
  pod(cpuRequest('12')),
];

const POLICIES = [
  policy('gpu', { gpu: { products: ['NVIDIA-*'], resource: 'nvidia.com/gpu', mode: 'Required', weight: 1 } }, { priority: 20 }),
  policy('labels', { nodeLabels: { required: [{ key: ZONE, operator: 'In', values: ['zone-a', 'zone-b'] }], preferred: [] } }, { priority: 10 }),
  policy('spread', { spread: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] }),
  policy('numa', { numa: { policy: 'SingleNUMANode', mode: 'Required', maxCandidates: 1 } }, { priority: -10 }),
];

describe('decision memo', () => {
  test('a set that decided other Pods first decides each Pod as a fresh one does', () => {
    const shared = compile(POLICIES, buildSnapshot(clusterObjects(), { now: NOW }));
    const order = [...PODS, ...[...PODS].reverse(), ...PODS];
    const fresh = (target: Pod) => decide({ pod: target, namespace: 'default' }, compile(POLICIES, buildSnapshot(clusterObjects(), { now: NOW })), { ...OPTIONS, explain: true });
    for (const target of order) assert.deepEqual(decide({ pod: target, namespace: 'default' }, shared, { ...OPTIONS, explain: true }), fresh(target));
  });

  test('placement answers what schedulableFor and placementNodes do, Pod by Pod', () => {
    const snapshot = buildSnapshot(clusterObjects(), { now: NOW });
    const { memo } = compile(POLICIES, snapshot);
    for (const target of [...PODS, ...PODS]) {
      const { schedulable, own } = memo.placement(target);
      assert.ok(schedulable.equals(schedulableFor(target, snapshot)));
      assert.ok(own.equals(placementNodes(target, snapshot)));
    }
  });

  test('and keeps the identity of a set it already computed', () => {
    const snapshot = buildSnapshot(clusterObjects(), { now: NOW });
    const { memo } = compile(POLICIES, snapshot);
    const zoneA = snapshot.nodes.withLabelValue(ZONE, 'zone-a');
    const schedulable = snapshot.nodes.schedulable();
    const first = memo.and(schedulable, zoneA);
    assert.equal(memo.and(schedulable, zoneA), first);
    assert.ok(first.equals(schedulable.and(zoneA)));
    assert.equal(first.size, 2);
  });

  test('quantity reads what parseQuantity reads, asked once or again', () => {
    const { memo } = compile(POLICIES, buildSnapshot(clusterObjects(), { now: NOW }));
    const values: unknown[] = ['500m', '1Gi', '0.1', 'lots', '', 2, 1.5, null, '1'.repeat(80), ' 8 '];
    for (const value of [...values, ...values]) assert.equal(memo.quantity(value), parseQuantity(value), String(value));
    assert.equal(memo.quantity('1Gi'), 1024 ** 3 * 1000);
  });

  test('candidates are the policies whose namespace fields hold, in priority order, asked once per namespace', () => {
    const rules = { nodeLabels: { required: [{ key: 'disk', operator: 'Exists' as const }], preferred: [] } };
    const policies = [
      policy('any', rules, { priority: 1 }),
      policy('ml-glob', rules, { priority: 9, match: { namespaces: ['m?'] } }),
      policy('team-ml', rules, { priority: 5, match: { namespaceSelector: { matchLabels: { team: 'ml' } } } }),
      policy('not-ml', rules, { priority: 7, match: { excludeNamespaces: ['ml'] } }),
      policy('by-name-label', rules, { priority: 3, match: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'web' } } } }),
      policy('pods-only', rules, { priority: 2, match: { podSelector: { matchLabels: { app: 'x' } } } }),
    ];
    const compiled = compile(policies, buildSnapshot(clusterObjects(), { now: NOW }));
    const names = (namespace: string) => compiled.candidates(namespace).map((candidate) => candidate.policy.name);
    assert.deepEqual(names('ml'), ['ml-glob', 'team-ml', 'pods-only', 'any']);
    assert.deepEqual(names('web'), ['not-ml', 'by-name-label', 'pods-only', 'any']);
    assert.deepEqual(names('unknown'), ['not-ml', 'pods-only', 'any']);
    assert.equal(compiled.candidates('ml'), compiled.candidates('ml'));
  });
});
