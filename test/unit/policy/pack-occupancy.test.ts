// Binds change the occupancy, not the snapshot: the compiled set and the memos
// of decisions that do not read it survive, a pack decision follows it, and
// what pack counted per rack, brought up to date bind by bind, is what a
// fresh count of the same cluster gives. Pods held to a rack but not bound yet
// count there.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import fastJsonPatch from 'fast-json-patch';
import { podRequest } from '../../../src/kube/podFacts.ts';
import type { KubeObject, Pod } from '../../../src/kube/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import type { Decision } from '../../../src/policy/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { TopologyBuilder } from '../../../src/topology/builder.ts';
import { NOW, OPTIONS, pod, policy } from './engine-cluster.ts';
import { bound, held, PACK, RACK, racks, replica } from './pack-cluster.ts';

const POLICIES = [
  policy('gang', { pack: PACK }, { match: { namespaces: ['ml'] } }),
  policy(
    'web',
    { nodeLabels: { required: [{ key: RACK, operator: 'In', values: ['r1'] }], preferred: [] } },
    { match: { namespaces: ['web'] } },
  ),
];

function live(objects: readonly KubeObject[]): TopologyBuilder {
  const builder = new TopologyBuilder({ sources: ['nodes', 'pods'] });
  builder.replace('nodes', racks(), NOW);
  builder.replace('pods', objects, NOW);
  return builder;
}

const shown = (decision: Decision) => JSON.stringify({ patch: decision.patch, warnings: decision.warnings });

test('a bind makes a new occupancy, not a new snapshot; the occupancy says which node changed', () => {
  const builder = live([]);
  const snapshot = builder.publish();
  const before = builder.occupancy();
  assert.equal(builder.occupancy(), before, 'nothing bound since: the same occupancy');
  builder.apply('pods', 'ADDED', bound('a', 'n3', '4'), NOW);
  builder.apply('pods', 'ADDED', bound('b', 'n5', '4'), NOW);
  assert.equal(builder.changed, false);
  assert.equal(builder.publish(), snapshot);
  const after = builder.occupancy();
  assert.equal(after.version, before.version + 1, 'two binds between two reads: one new version');
  assert.deepEqual(after.requested('n3'), { cpu: 4000 });
  assert.deepEqual([...after.changedSince(before)!].sort(), ['n3', 'n5']);
  assert.deepEqual([...after.changedSince(after)!], []);
  assert.equal(after.changedSince(live([]).occupancy()), undefined, "another table's occupancy: not comparable");
});

test('changedSince spans the versions between two occupancies, and only those, while the log reaches back', () => {
  const builder = live([]);
  const versions = [builder.occupancy()];
  for (const [name, node] of [
    ['a', 'n1'],
    ['b', 'n2'],
    ['c', 'n3'],
  ] as const) {
    builder.apply('pods', 'ADDED', bound(name, node, '1'), NOW);
    versions.push(builder.occupancy());
  }
  const [v0, v1, v2, v3] = versions;
  assert.deepEqual([...v2!.changedSince(v0!)!].sort(), ['n1', 'n2']);
  assert.deepEqual([...v3!.changedSince(v1!)!].sort(), ['n2', 'n3']);
  assert.equal(v1!.changedSince(v2!), undefined, 'a later occupancy is not "since"');
  for (let i = 0; i < 300; i++) {
    builder.apply('pods', 'ADDED', bound(`churn-${i}`, `n${i % 4}`, '1'), NOW);
    builder.occupancy();
  }
  assert.equal(builder.occupancy().changedSince(v0!), undefined, 'older than the log: counted afresh');
});

test("binds leave the memo of a Pod without pack alone and move a pack Pod's decision with them", () => {
  const builder = live([]);
  const compiled = compile(POLICIES, builder.publish());
  const web = podRequest(pod(), 'web');
  const options = () => ({ ...OPTIONS, occupancy: builder.occupancy() });
  decide(web, compiled, options());
  decide(web, compiled, options());
  const kept = decide(web, compiled, options()); // kept from its third sight (docs/engine.md, Cost)
  // 4 × 16 cpu fits r1 or r2 (64 cpu each), never r3 (32).
  const first = shown(decide(podRequest(replica('train', '16', 4), 'ml'), compiled, options()));
  const rack = JSON.parse(first).patch[0].value.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
    .nodeSelectorTerms[0].matchExpressions[0].values[0] as string;
  const other = rack === 'r1' ? 'r2' : 'r1';
  // Others fill the chosen rack before any replica binds: the next replica goes to the other rack that fits.
  const [a, b] = rack === 'r1' ? ['n1', 'n2'] : ['n3', 'n4'];
  builder.apply('pods', 'ADDED', bound('x', a, '20'), NOW);
  builder.apply('pods', 'ADDED', bound('y', b, '20'), NOW);
  assert.equal(decide(web, compiled, options()), kept, 'the same decision object: memo kept across binds');
  const moved = decide(podRequest(replica('train', '16', 4, 1), 'ml'), compiled, options());
  assert.match(shown(moved), new RegExp(`"values":\\["${other}"\\]`));
});

/** The rack a pack decision requires. */
const rackOf = (decision: Decision): string =>
  JSON.parse(shown(decision)).patch[0].value.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
    .nodeSelectorTerms[0].matchExpressions[0].values[0];

/** The replica as the API server stores it after topogate's patch: what the pods watch sees before the bind. */
function admitted(pod: Pod, decision: Decision): KubeObject {
  const stored = { ...structuredClone(pod), metadata: { ...pod.metadata, namespace: 'ml' } };
  return fastJsonPatch.applyPatch(stored, structuredClone(decision.patch) as fastJsonPatch.Operation[])
    .newDocument as KubeObject;
}

test("a gang's Pods held to a rack and not bound yet: another gang goes to the other rack, the gang's last Pod joins them", () => {
  const builder = live([]);
  const compiled = compile(POLICIES, builder.publish());
  const options = () => ({ ...OPTIONS, occupancy: builder.occupancy() });
  // 4 × 16 cpu fits r1 or r2 (64 cpu each), never r3 (32).
  const first = decide(podRequest(replica('train', '16', 4), 'ml'), compiled, options());
  const rack = rackOf(first);
  const other = rack === 'r1' ? 'r2' : 'r1';
  // A second gang that ranks the same rack first while nothing is held there.
  const rival = Array.from({ length: 20 }, (_, i) => `gang-${i}`).find(
    (name) => rackOf(decide(podRequest(replica(name, '16', 4), 'ml'), compiled, options())) === rack,
  )!;
  assert.ok(rival, 'some gang name ranks the same rack first');

  for (let index = 0; index < 3; index++)
    builder.apply('pods', 'ADDED', admitted(replica('train', '16', 4, index), first), NOW);
  const pending = builder.occupancy().pendingUnder(RACK)?.get(rack);
  assert.deepEqual(
    { pods: pending?.pods, requests: pending?.requests, workloads: [...(pending?.workloads.values() ?? [])] },
    { pods: 3, requests: { cpu: 48_000 }, workloads: [3] },
  );
  const rivalNow = decide(podRequest(replica(rival, '16', 4), 'ml'), compiled, options());
  assert.equal(rackOf(rivalNow), other, '16 cpu left where the gang is held: the rival takes the other rack');
  const last = decide(podRequest(replica('train', '16', 4, 3), 'ml'), compiled, options());
  assert.equal(rackOf(last), rack, "the gang's last Pod goes where its three are held");

  // One of them binds: what it holds moves from the rack to its node, and nothing else changes.
  const node = rack === 'r1' ? 'n1' : 'n3';
  const boundNow = admitted(replica('train', '16', 4, 0), first);
  builder.apply('pods', 'MODIFIED', { ...boundNow, spec: { ...(boundNow.spec as object), nodeName: node } }, NOW);
  assert.equal(builder.occupancy().pendingUnder(RACK)?.get(rack)?.pods, 2);
  assert.deepEqual(builder.occupancy().requested(node), { cpu: 16_000 });
  assert.equal(rackOf(decide(podRequest(replica(rival, '16', 4), 'ml'), compiled, options())), other);
  assert.equal(rackOf(decide(podRequest(replica('train', '16', 4, 3), 'ml'), compiled, options())), rack);
});

test('room counted bind by bind equals room counted afresh', () => {
  const nodes = ['n1', 'n2', 'n3', 'n4', 'n5'];
  const event = fc.record({
    pod: fc.integer({ min: 0, max: 7 }),
    node: fc.constantFrom(...nodes),
    cpu: fc.constantFrom('2', '6', '10', '16'),
    gone: fc.boolean(),
    pending: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(event, { maxLength: 12 }), (events) => {
      const builder = live([]);
      const compiled = compile(POLICIES, builder.publish());
      const present = new Map<string, KubeObject>();
      for (const { pod: index, node, cpu, gone, pending } of events) {
        const name = `p${index}`;
        const owner = index % 2 === 0 ? 'train-5f7' : 'other-1';
        const rack = racks().find((object) => object.metadata?.name === node)!.metadata!.labels![RACK]!;
        const object = pending ? held(name, rack, cpu, owner) : bound(name, node, cpu, owner);
        if (gone) {
          builder.apply('pods', 'DELETED', object, NOW);
          present.delete(name);
        } else {
          builder.apply('pods', 'ADDED', object, NOW);
          present.set(name, object);
        }
        const fresh = compile(POLICIES, buildSnapshot([...racks(), ...present.values()], { now: NOW }));
        for (const [cpus, replicas] of [
          ['16', 4],
          ['6', 3],
          ['2', 1],
        ] as const) {
          const request = podRequest(replica('train', cpus, replicas), 'ml');
          const incremental = decide(request, compiled, { ...OPTIONS, occupancy: builder.occupancy() });
          assert.equal(shown(incremental), shown(decide(request, fresh, OPTIONS)));
        }
      }
    }),
    { numRuns: 60, seed: 20261203 },
  );
});
