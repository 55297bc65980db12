// A new snapshot recompiles the policy set: only what a decision needs is compiled, when it is first needed,
// so that a Node event among 500 policies costs the next decision the few policies that match its Pod.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import type { TopologySnapshot } from '../../../src/topology/model.ts';
import { clusterObjects, NOW, OPTIONS, pod, policy } from './engine-cluster.ts';

const ZONE = 'topology.kubernetes.io/zone';

/** The snapshot, with every node query that names a label counted. */
function counted(snapshot: TopologySnapshot): { snapshot: TopologySnapshot; asked: string[] } {
  const asked: string[] = [];
  const nodes = new Proxy(snapshot.nodes, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      // Its methods read private fields: they are called on the index itself, not the proxy.
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      return key !== 'withLabel'
        ? method
        : (label: string) => {
            asked.push(label);
            return method(label);
          };
    },
  });
  return { snapshot: { ...snapshot, nodes }, asked };
}

test('a policy that no decision reaches is never compiled against the snapshot', () => {
  const spread = (name: string, namespaces: string[], key: string) =>
    policy(
      name,
      { spread: [{ topologyKey: key, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] },
      {
        match: { namespaces },
      },
    );
  const policies = [spread('web', ['web'], ZONE), spread('other', ['other'], 'kubernetes.io/hostname')];
  const { snapshot, asked } = counted(buildSnapshot(clusterObjects(), { now: NOW }));
  const compiled = compile(policies, snapshot);
  assert.deepEqual(asked, [], 'compiling asks the nodes nothing');
  const decision = decide(podRequest(pod(), 'web'), compiled, OPTIONS);
  assert.deepEqual(decision.applied, ['web']);
  assert.deepEqual(asked, [ZONE], "only the matching policy's rule was compiled");
  decide(podRequest(pod({}, { name: 'q', labels: { app: 'web', x: 'y' } }), 'web'), compiled, OPTIONS);
  assert.deepEqual(asked, [ZONE], 'and only once for the compiled set');
});

test('a policy compiled lazily decides as one compiled at once did', () => {
  const policies = [
    policy('spread', { spread: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] }),
  ];
  const snapshot = buildSnapshot(clusterObjects(), { now: NOW });
  const lazily = decide(podRequest(pod(), 'default'), compile(policies, snapshot), OPTIONS);
  const warmed = compile(policies, snapshot);
  for (const compiled of warmed.policies) assert.ok(compiled.rules.length > 0);
  assert.deepEqual(decide(podRequest(pod(), 'default'), warmed, OPTIONS), lazily);
});

test('a set compiled against the next snapshot carries on which Pods were seen, not their decisions', () => {
  const policies = [
    policy('spread', { spread: [{ topologyKey: ZONE, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] }),
  ];
  const request = podRequest(pod(), 'default');
  const first = compile(policies, buildSnapshot(clusterObjects(), { now: NOW }));
  const before = decide(request, first, OPTIONS);
  const next = compile(policies, buildSnapshot(clusterObjects(), { now: NOW + 1 }), first);
  // Its labels were seen: the first sight on the new snapshot is remembered, and the second kept.
  const [one, two, three] = [1, 2, 3].map(() => decide(request, next, OPTIONS));
  assert.notEqual(one, before, "the old snapshot's decision is not reused");
  assert.notEqual(two, one);
  assert.equal(three, two, 'kept from the second decision on the new snapshot');
});
