// The gate's whole round trip without a cluster: the deferred answer (what
// needs no model, the gate, the reason), then the controller's plan applied to
// the admitted Pod, checked against what Kubernetes allows on a gated Pod.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import jsonPatch from 'fast-json-patch';
import type { Pod } from '../../../src/kube/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import {
  DEFERRED_ANNOTATION,
  deferredDecision,
  liftingGate,
  matchingPolicies,
  PLACEMENT_GATE,
} from '../../../src/policy/deferral.ts';
import { decide } from '../../../src/policy/engine.ts';
import type { AfterCreation, Decision, SchedulingPolicy } from '../../../src/policy/types.ts';
import { firstSeen, planRelease } from '../../../src/gates/release.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { node, NOW, OPTIONS } from '../policy/engine-cluster.ts';
import { podFacts, podRequest } from '../../../src/kube/podFacts.ts';

const zone = 'topology.kubernetes.io/zone';
const snapshot = buildSnapshot(
  [node('a1', { [zone]: 'a' }), node('b1', { [zone]: 'b' }), node('c1', { [zone]: 'c' })],
  { now: NOW, version: 1 },
);

const inZone = (name: string, zones: string[], onUnsatisfiable: 'Warn' | 'Reject' = 'Reject'): SchedulingPolicy => ({
  name,
  priority: 10,
  onUnsatisfiable,
  rules: {
    nodeLabels: { required: [{ key: zone, operator: 'In', values: zones }], preferred: [] },
    spread: [{ topologyKey: zone, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }],
  },
});
const spreadOnly: SchedulingPolicy = {
  name: 'spread-only',
  priority: 5,
  onUnsatisfiable: 'Warn',
  rules: { spread: [{ topologyKey: 'kubernetes.io/hostname', maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }] },
};

function pod(extra: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'shop', labels: { app: 'web' }, resourceVersion: '7' },
    spec: { containers: [{ name: 'c', image: 'x' }], ...extra },
  };
}

function admit(policies: SchedulingPolicy[], admitted: Pod, reason = 'always'): { decision: Decision; pod: Pod } {
  const compiled = compile(policies, snapshot);
  const request = podRequest(admitted, 'shop');
  const decision = deferredDecision(request, matchingPolicies(request, compiled, OPTIONS), reason);
  assert.ok(decision, 'a policy needs the model: the Pod is deferred');
  const patched = jsonPatch.applyPatch(structuredClone(admitted), structuredClone(decision.patch) as never).newDocument;
  return { decision, pod: patched as Pod };
}

const gates = (subject: Pod) => (subject.spec?.schedulingGates as { name: string }[] | undefined)?.map((g) => g.name);

describe('the deferred answer', () => {
  test('carries the spread, the gate and the reason, and no node affinity', () => {
    const { decision, pod: admitted } = admit([inZone('zone-a', ['a'])], pod(), 'budget');
    assert.equal(decision.deferred, 'budget');
    assert.deepEqual(gates(admitted), [PLACEMENT_GATE]);
    assert.equal(admitted.metadata?.annotations?.[DEFERRED_ANNOTATION], 'budget');
    assert.equal(admitted.spec?.topologySpreadConstraints?.[0]?.topologyKey, zone);
    assert.equal(admitted.spec?.affinity, undefined);
    assert.equal(admitted.metadata?.annotations?.['topogate.dev/policies'], undefined);
  });

  test('adds the gate once when the gate plane gave it already, beside other gates', () => {
    const gated = pod({ schedulingGates: [{ name: 'example.com/quota' }, { name: PLACEMENT_GATE }] });
    const { pod: admitted } = admit([inZone('zone-a', ['a'])], gated);
    assert.deepEqual(gates(admitted), ['example.com/quota', PLACEMENT_GATE]);
  });

  test('is not given when no matching policy needs the model', () => {
    const compiled = compile([spreadOnly], snapshot);
    const request = podRequest(pod(), 'shop');
    assert.equal(deferredDecision(request, matchingPolicies(request, compiled, OPTIONS), 'always'), undefined);
  });

  test('a synchronous decision on a Pod the gate plane gated removes only our gate, in the same patch', () => {
    const gated = pod({ schedulingGates: [{ name: 'example.com/quota' }, { name: PLACEMENT_GATE }] });
    const compiled = compile([inZone('zone-a', ['a'])], snapshot);
    const decision = liftingGate(decide(podRequest(gated, 'shop'), compiled, OPTIONS), podFacts(gated, 'shop'));
    const placed = jsonPatch.applyPatch(structuredClone(gated), structuredClone(decision.patch) as never)
      .newDocument as Pod;
    assert.deepEqual(gates(placed), ['example.com/quota']);
    assert.ok(placed.spec?.affinity?.nodeAffinity, 'placed in the same patch');
  });
});

describe('the release plan', () => {
  const placeOn = (policies: SchedulingPolicy[], admitted: Pod) => (created: AfterCreation) =>
    decide(podRequest(firstSeen(admitted), 'shop'), compile(policies, snapshot), { ...OPTIONS, created });

  test('narrows the node affinity, keeps the spread it had, removes the gate: one patch a gated Pod may take', () => {
    const policies = [inZone('zone-a', ['a'])];
    const { pod: admitted } = admit(
      policies,
      pod({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['a1', 'b1'] }] },
              ],
            },
          },
        },
      }),
    );
    const plan = planRelease(admitted, placeOn(policies, admitted), false, 1500);
    assert.ok(!('wait' in plan));
    assert.equal(plan.outcome, 'placed');
    assert.ok(
      plan.patch.every(
        (op) =>
          op.path.startsWith('/metadata/') ||
          op.path.startsWith('/spec/affinity') ||
          op.path.startsWith('/spec/schedulingGates'),
      ),
    );
    const released = jsonPatch.applyPatch(structuredClone(admitted), structuredClone(plan.patch) as never)
      .newDocument as Pod;
    assert.deepEqual(gates(released), []);
    const terms =
      released.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    // ANDed into the one existing term (a gated Pod may not gain terms), the user's expression first.
    assert.equal(terms?.length, 1);
    assert.deepEqual(
      terms?.[0]?.matchExpressions?.map((expression) => expression.key),
      ['kubernetes.io/hostname', zone],
    );
    assert.equal(released.spec?.topologySpreadConstraints?.length, 1, 'the spread is not written twice');
    assert.equal(released.metadata?.annotations?.['topogate.dev/policies'], 'zone-a');
    assert.deepEqual(
      plan.events.map((event) => [event.type, event.reason, event.message]),
      [['Normal', 'Placed', `placed by zone-a after 1.5s behind ${PLACEMENT_GATE}`]],
    );
  });

  test('a stale resourceVersion makes the patch fail rather than misapply', () => {
    const policies = [inZone('zone-a', ['a'])];
    const { pod: admitted } = admit(policies, pod());
    const plan = planRelease(admitted, placeOn(policies, admitted), false, 10);
    assert.ok(!('wait' in plan));
    const changed = { ...admitted, metadata: { ...admitted.metadata, resourceVersion: '8' } };
    assert.throws(() => jsonPatch.applyPatch(structuredClone(changed), structuredClone(plan.patch) as never, true));
  });

  test('a Reject policy with no node waits, and after --defer-max is released WITH its required terms', () => {
    const policies = [inZone('zone-x', ['x'], 'Reject'), spreadOnly];
    const { pod: admitted } = admit(policies, pod());
    assert.match((planRelease(admitted, placeOn(policies, admitted), false, 10) as { wait: string }).wait, /zone-x/);
    const plan = planRelease(admitted, placeOn(policies, admitted), true, 61_000);
    assert.ok(!('wait' in plan));
    assert.equal(plan.outcome, 'unsatisfiable');
    const event = plan.events.find((candidate) => candidate.reason === 'PlacementUnsatisfiable');
    assert.equal(event?.type, 'Warning');
    assert.match(event?.message ?? '', /policy zone-x .*61\.0s: released with its required placement/);
    const released = jsonPatch.applyPatch(structuredClone(admitted), structuredClone(plan.patch) as never)
      .newDocument as Pod;
    // It waits, Pending, at the scheduler: no node has zone x. Never released without it.
    assert.deepEqual(
      released.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
      [{ matchExpressions: [{ key: zone, operator: 'In', values: ['x'] }] }],
    );
    assert.deepEqual(gates(released), []);
    const record = JSON.parse(released.metadata!.annotations!['topogate.dev/decision']!);
    assert.deepEqual(record.added.required, [{ key: zone, operator: 'In', values: ['x'] }]);
    assert.deepEqual(
      record.policies.map((policy: { name: string }) => policy.name),
      ['zone-x', 'spread-only'],
    );
  });

  test('under Warn an unsatisfiable policy is released at once with its required outputs dropped', () => {
    const policies = [inZone('zone-x', ['x'], 'Warn')];
    const { pod: admitted } = admit(policies, pod());
    const plan = planRelease(admitted, placeOn(policies, admitted), false, 10);
    assert.ok(!('wait' in plan));
    assert.ok(plan.events.some((event) => event.type === 'Warning' && /dropped/.test(event.message)));
    const released = jsonPatch.applyPatch(structuredClone(admitted), structuredClone(plan.patch) as never)
      .newDocument as Pod;
    assert.equal(released.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution, undefined);
  });

  test('a model not fit to decide on waits, then after --defer-max the Pod goes unchanged with a Warning', () => {
    const { pod: admitted } = admit([inZone('zone-a', ['a'])], pod());
    const notReady = () => ({ wait: 'model not ready: nodes not synced' });
    assert.deepEqual(planRelease(admitted, notReady, false, 10), { wait: 'model not ready: nodes not synced' });
    const plan = planRelease(admitted, notReady, true, 60_000);
    assert.ok(!('wait' in plan));
    assert.equal(plan.outcome, 'expired');
    assert.equal(plan.events[0]?.type, 'Warning');
    const released = jsonPatch.applyPatch(structuredClone(admitted), structuredClone(plan.patch) as never)
      .newDocument as Pod;
    assert.deepEqual(gates(released), []);
    assert.equal(released.spec?.affinity, undefined);
  });
});
