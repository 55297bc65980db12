import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject, Pod } from '../../../src/kube/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import type { Decision, PackRule } from '../../../src/policy/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { NOW, node, OPTIONS, policy } from './engine-cluster.ts';
import { BLOCK, bound, PACK, RACK, racks, replica, ZONE } from './pack-cluster.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';

function rackOf(objects: KubeObject[], target: Pod, rule: PackRule = PACK, explain = false) {
  const decision = decide(
    podRequest(target, 'ml'),
    compile([policy('gang', { pack: rule })], buildSnapshot(objects, { now: NOW })),
    { ...OPTIONS, explain },
  );
  const affinity = affinityOf(decision);
  const terms = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return { decision, expressions: terms?.[0]?.matchExpressions, affinity };
}

function affinityOf(decision: Decision): any {
  return (decision.patch.find((op) => op.path === '/spec/affinity') as { value?: unknown } | undefined)?.value;
}

describe('pack', () => {
  test('every replica of a workload gets the same rack, one that fits replicas × request', () => {
    // 4 × 16 cpu: only the two-node racks (2 Pods per 32-cpu node) fit.
    const picks = new Set<string>();
    for (let index = 0; index < 4; index++) {
      const { expressions } = rackOf(racks(), replica('train', '16', 4, index));
      assert.equal(expressions.length, 1);
      assert.equal(expressions[0].key, RACK);
      picks.add(expressions[0].values[0]);
    }
    assert.equal(picks.size, 1);
    assert.ok(['r1', 'r2'].includes([...picks][0]!));
  });

  test('fit: BestFit takes the fitting rack with the least room, whatever the workload; Spread spreads workloads', () => {
    // 2 × 16 cpu fits r1, r2 (4 Pods each) and r3 (2 Pods): BestFit leaves the larger racks whole.
    const bestFit = { ...PACK, fit: 'BestFit' as const };
    const names = Array.from({ length: 12 }, (_, i) => `job-${i}`);
    const picks = (rule: PackRule) =>
      new Set(names.map((name) => rackOf(racks(), replica(name, '16', 2), rule).expressions[0].values[0]));
    assert.deepEqual([...picks(bestFit)], ['r3']);
    assert.ok(picks(PACK).size > 1, 'rendezvous hashing spreads workloads over the fitting racks');
    // With one Pod of another workload on r1 (16 cpu), r1 has room for 3: it now fits best for 3 replicas.
    const busy = [...racks(), bound('o1', 'n1', '16')];
    assert.equal(rackOf(busy, replica('train', '16', 3), bestFit).expressions[0].values[0], 'r1');
  });

  test('free capacity is allocatable minus what bound Pods request, in whole Pods per node', () => {
    // r1 and r2 each lose 40 cpu of 64 to other Pods: 24 left, but 17 per node only fits 1 Pod per node where 17 is free.
    const busy = [...racks(), bound('o1', 'n1', '20'), bound('o2', 'n3', '20'), bound('o3', 'n4', '20')];
    // 2 × 16: r1 has n2 (32 free: 2 Pods) and n1 (12 free: 0); r2 has n3, n4 at 12 free: 0 Pods; r3 has 2.
    const { expressions } = rackOf(busy, replica('train', '16', 2));
    assert.ok(['r1', 'r3'].includes(expressions[0].values[0]));
    const none = rackOf(busy, replica('train', '16', 5));
    assert.deepEqual(none.decision.patch, []);
    assert.ok(
      none.decision.warnings.some((w) => w.includes('no topogate.dev/rack domain has room for 5 × (cpu=16)')),
      none.decision.warnings.join('\n'),
    );
  });

  test("the rack that holds the workload's bound Pods stays chosen while the rest still fits, and is left when it does not", () => {
    const mine = (name: string, nodeName: string) => bound(name, nodeName, '16', 'train-5f7');
    const withTwo = [...racks(), mine('t1', 'n5'), mine('t2', 'n5')];
    // r3 holds both replicas and has no room left: a replacement Pod goes to a rack with room for both
    // (r1 or r2, 4 × 16 cpu free each; which one is the workload's rendezvous hash).
    const moved = rackOf(withTwo, replica('train', '16', 2)).expressions;
    assert.equal(moved.length, 1);
    assert.equal(moved[0].key, RACK);
    assert.equal(moved[0].values.length, 1);
    assert.ok(['r1', 'r2'].includes(moved[0].values[0]), JSON.stringify(moved));
    const home = [...racks(), mine('t1', 'n3')];
    assert.deepEqual(rackOf(home, replica('train', '16', 4)).expressions[0].values, ['r2']);
    // r2 has room for 3 more (n3 16 free: 1, n4: 2) — 4 replicas with one bound need 3: stays.
    const full = [...home, bound('x', 'n4', '20')];
    // Now r2 has room for 1 more only: another rack that fits all 4 is chosen.
    assert.deepEqual(rackOf(full, replica('train', '16', 4)).expressions[0].values, ['r1']);
  });

  test('different workloads spread over the fitting racks, each one always the same', () => {
    const chosen = new Map<string, string>();
    for (let index = 0; index < 40; index++) {
      const name = `job${index}`;
      const first = rackOf(racks(), replica(name, '1')).expressions[0].values[0];
      assert.equal(rackOf(racks(), replica(name, '1', undefined, 7)).expressions[0].values[0], first);
      chosen.set(name, first);
    }
    assert.equal(new Set(chosen.values()).size, 3);
  });

  test('a rack name found under two blocks is named with its outer levels', () => {
    const objects = [
      node('x1', { [ZONE]: 'z', [BLOCK]: 'b1', [RACK]: 'r1' }),
      node('x2', { [ZONE]: 'z', [BLOCK]: 'b2', [RACK]: 'r1' }),
    ];
    const { expressions } = rackOf(objects, replica('train', '1'));
    assert.deepEqual(
      expressions.map((e: any) => e.key),
      [ZONE, BLOCK, RACK],
    );
  });

  test('Preferred writes a preference; explain says why the domain was chosen', () => {
    const { affinity, decision } = rackOf(racks(), replica('train', '16', 4), { ...PACK, mode: 'Preferred' }, true);
    const term = affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0];
    assert.equal(term.weight, 100);
    assert.equal(term.preference.matchExpressions[0].key, RACK);
    const detail = (decision.trace as any).policies[0].rules[0].detail.join('\n');
    assert.match(detail, /room for 4 × \(cpu=16\), 4 replica\(s\) wanted/);
  });

  test('the replicas annotation must be a positive integer, else the Pod counts alone', () => {
    const odd = replica('train', '16');
    odd.metadata!.annotations = { 'topogate.dev/replicas': '-3' };
    // One Pod of 16 cpu fits every rack, r3 included.
    assert.ok(rackOf(racks(), odd).expressions[0].values.length === 1);
  });
});

test('the decision memo tells workloads apart when a pack rule is loaded', () => {
  const compiled = compile([policy('gang', { pack: PACK })], buildSnapshot(racks(), { now: NOW }));
  // Same labels and spec, different owners: only the workload tells them apart.
  const rackFor = (name: string, index: number) => {
    const pod = replica(name, '1', undefined, index);
    pod.metadata!.labels = { app: 'same', 'pod-template-hash': '5f7' };
    const decision = decide(podRequest(pod, 'ml'), compiled, OPTIONS);
    return JSON.stringify(decision.patch);
  };
  for (const name of ['job0', 'job1', 'job2', 'job3', 'job4', 'job5']) {
    const fresh = rackOf(racks(), replica(name, '1')).expressions[0].values[0];
    for (let index = 0; index < 3; index++) assert.match(rackFor(name, index), new RegExp(`"values":\\["${fresh}"\\]`));
  }
});
