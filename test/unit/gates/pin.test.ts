// A Pod gated before topogate could decide (the gate plane gated it while topogate was down) has no spread
// constraint, and none can be added once it exists: its spread is held by node affinity to the domain with the
// fewest of its workload's Pods, and the decision record says exactly that. A Pod deferred at admission carries
// the spread written then, and its record says `added`, not `unchanged`.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import jsonPatch from 'fast-json-patch';
import type { KubeObject, Pod } from '../../../src/kube/types.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { deferredDecision, matchingPolicies, PLACEMENT_GATE } from '../../../src/policy/deferral.ts';
import { decide } from '../../../src/policy/engine.ts';
import type { AfterCreation, SchedulingPolicy } from '../../../src/policy/types.ts';
import { firstSeen, planRelease } from '../../../src/gates/release.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { node, NOW, OPTIONS } from '../policy/engine-cluster.ts';

const zone = 'topology.kubernetes.io/zone';
const spread: SchedulingPolicy = {
  name: 'zones',
  priority: 10,
  onUnsatisfiable: 'Warn',
  rules: {
    nodeLabels: { required: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }], preferred: [] },
    spread: [{ topologyKey: zone, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }],
  },
};
const nodes = ['a', 'b', 'c'].map((name) => node(`${name}1`, { [zone]: name, 'kubernetes.io/os': 'linux' }));

function webPod(name: string, spec: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'shop',
      resourceVersion: '7',
      labels: { app: 'web', 'pod-template-hash': '5d8f' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d8f', uid: 'u', controller: true }],
    },
    spec: { containers: [{ name: 'c', image: 'x' }], ...spec },
  };
}
const boundIn = (name: string, zoneName: string) => webPod(name, { nodeName: `${zoneName}1` });
const heldIn = (name: string, zoneName: string) =>
  webPod(name, {
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: zone, operator: 'In', values: [zoneName] }] }],
        },
      },
    },
  });
const gated = () => webPod('web-new', { schedulingGates: [{ name: PLACEMENT_GATE }] });

function release(pods: readonly Pod[], gatedPod: Pod) {
  const snapshot = buildSnapshot([...nodes, ...pods] as KubeObject[], { now: NOW, version: 1 });
  const compiled = compile([spread], snapshot);
  const place = (created: AfterCreation) =>
    decide(podRequest(firstSeen(gatedPod), 'shop'), compiled, { ...OPTIONS, created });
  const plan = planRelease(gatedPod, place, false, 1000);
  assert.ok(!('wait' in plan));
  const released = jsonPatch.applyPatch(structuredClone(gatedPod), structuredClone(plan.patch) as never)
    .newDocument as Pod;
  return { plan, released, record: JSON.parse(released.metadata!.annotations!['topogate.dev/decision']!) };
}

const required = (pod: Pod) =>
  pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]
    ?.matchExpressions;

describe('a Pod gated before topogate decided', () => {
  test('is pinned to the zone with the fewest of its workload, and its record says pinned, never added', () => {
    const { released, record } = release(
      [boundIn('w1', 'a'), boundIn('w2', 'a'), boundIn('w3', 'b'), boundIn('w4', 'c'), heldIn('w5', 'c')],
      gated(),
    );
    assert.equal(released.spec?.topologySpreadConstraints, undefined);
    assert.deepEqual(required(released), [
      { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
      { key: zone, operator: 'In', values: ['b'] },
    ]);
    assert.deepEqual(record.policies[0].rules, { 'nodeLabels.required': 'added', 'spread[0]': 'pinned' });
    assert.equal(record.added.spread, undefined);
    assert.deepEqual(record.added.required, required(released));
  });

  test('six Pods released one after another, each counted where it was pinned, land 2/2/2', () => {
    const earlier: Pod[] = [];
    for (let index = 0; index < 6; index++) {
      const { released } = release(earlier, { ...gated(), metadata: { ...gated().metadata, name: `web-${index}` } });
      earlier.push(released);
    }
    const zones = earlier.map((pod) => required(pod)!.find((expression) => expression.key === zone)!.values![0]);
    assert.deepEqual(zones, ['a', 'b', 'c', 'a', 'b', 'c']);
  });
});

describe('a Pod deferred at admission', () => {
  test('carries the spread written then, and the record says added: explain takes it back', () => {
    const snapshot = buildSnapshot(nodes as KubeObject[], { now: NOW, version: 1 });
    const compiled = compile([spread], snapshot);
    const request = podRequest(webPod('web-d'), 'shop');
    const deferred = deferredDecision(request, matchingPolicies(request, compiled, OPTIONS), 'budget')!;
    const admitted = jsonPatch.applyPatch(structuredClone(webPod('web-d')), structuredClone(deferred.patch) as never)
      .newDocument as Pod;
    assert.equal(admitted.spec?.topologySpreadConstraints?.length, 1);
    const place = (created: AfterCreation) =>
      decide(podRequest(firstSeen(admitted), 'shop'), compiled, { ...OPTIONS, created });
    const plan = planRelease(admitted, place, false, 1000);
    assert.ok(!('wait' in plan));
    const released = jsonPatch.applyPatch(structuredClone(admitted), structuredClone(plan.patch) as never)
      .newDocument as Pod;
    const record = JSON.parse(released.metadata!.annotations!['topogate.dev/decision']!);
    assert.deepEqual(record.policies[0].rules, { 'nodeLabels.required': 'added', 'spread[0]': 'added' });
    assert.equal(record.added.spread.length, 1);
    assert.equal(released.spec?.topologySpreadConstraints?.length, 1, 'not written twice');
    assert.deepEqual(required(released), [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }]);
  });
});
