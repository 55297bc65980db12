// A decision sees the Pod's labels that some policy of the set reads, and no other: a Pod that differs from one
// decided before only in labels no policy reads (a new workload's pod-template-hash) is the same Pod to the memo.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { projected } from '../../../src/policy/projection.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { clusterObjects, NOW, OPTIONS, pod, policy } from './engine-cluster.ts';

const ZONE = 'topology.kubernetes.io/zone';

test('labels outside the keys are cut; a Pod with none of those is given back as it is', () => {
  const request = podRequest(pod({}, { labels: { app: 'web', 'pod-template-hash': 'abc', tier: 'front' } }), 'shop');
  const cut = projected(request, new Set(['app', 'tier', 'team']));
  assert.deepEqual(cut.facts.labels, { app: 'web', tier: 'front' });
  assert.equal(cut.facts.namespace, 'shop');
  assert.equal(cut.name, request.name);
  assert.deepEqual(request.facts.labels, { app: 'web', 'pod-template-hash': 'abc', tier: 'front' }, 'not changed');
  assert.deepEqual(projected(request, new Set()).facts.labels, {});
  assert.equal(projected(request, new Set(['app', 'pod-template-hash', 'tier'])), request);
});

test('a "__proto__" label a policy reads stays an own label, as the Pod carried it', () => {
  const labels = JSON.parse('{"__proto__":"x","app":"web","other":"y"}') as Record<string, string>;
  const request = podRequest(pod({}, { labels }), 'shop');
  const cut = projected(request, new Set(['__proto__']));
  assert.deepEqual(Object.keys(cut.facts.labels), ['__proto__']);
  assert.equal(Object.getPrototypeOf(cut.facts.labels), Object.prototype);
});

test("a new workload's Pods, alike but for labels no policy reads, take the decision kept for the first ones", () => {
  const policies = [
    policy(
      'web',
      { spread: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }] },
      {
        match: { podSelector: { matchLabels: { tier: 'front' } } },
      },
    ),
  ];
  const compiled = compile(policies, buildSnapshot(clusterObjects(), { now: NOW }));
  const workload = (hash: string, app = 'web') =>
    podRequest(pod({}, { labels: { app, tier: 'front', 'pod-template-hash': hash } }), 'shop');
  const decisions = ['a1', 'b2', 'c3', 'd4', 'e5'].map((hash) => decide(workload(hash), compiled, OPTIONS));
  assert.equal(decisions[0]!.applied.length, 1, 'the policy applies');
  // As replicas: the first sight meets only the labels, the second the whole key, the third keeps the decision.
  assert.notEqual(decisions[2], decisions[1]);
  assert.equal(decisions[3], decisions[2], 'kept from the third sight');
  assert.equal(decisions[4], decisions[2]);
  const other = decide(workload('f6', 'api'), compiled, OPTIONS);
  assert.notDeepEqual(other.patch, decisions[1]!.patch, 'the spread copies app: another value, another decision');
  const unselected = podRequest(pod({}, { labels: { app: 'web', tier: 'back' } }), 'shop');
  assert.equal(decide(unselected, compiled, OPTIONS).applied.length, 0, 'podSelector reads tier');
});
