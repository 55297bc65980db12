// The node table's label index: which nodes carry a key is indexed for every key, a key's values from the first
// snapshot asked about them (and only when some node carries the key). Whatever order nodes come, change and go in,
// and whenever a key is first asked about (before its nodes, after them, or never), every snapshot answers each key
// as its own nodes hold it, then and later.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Labels } from '../../../src/kube/types.ts';
import type { NodeIndex } from '../../../src/topology/model.ts';
import { NodeTable } from '../../../src/topology/nodes.ts';
import type { NodeFacts } from '../../../src/topology/read/node.ts';

/** `made-up` stands for a key a Pod names: no node carries it until some step gives it one. */
const KEYS = ['zone', 'rack', 'gpu', 'made-up'] as const;
const NAMES = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5'] as const;

const facts = (name: string, labels: Labels): NodeFacts => ({
  name,
  labels,
  allocatable: {},
  unschedulable: false,
  ready: true,
  taints: [],
  addresses: [],
});

/** Value → the names of the nodes with it, as the nodes hold them. */
function held(nodes: ReadonlyMap<string, Labels>, key: string): Map<string, Set<string>> {
  const values = new Map<string, Set<string>>();
  for (const [name, labels] of nodes) {
    const value = labels[key];
    if (value !== undefined) values.set(value, (values.get(value) ?? new Set()).add(name));
  }
  return values;
}

/** Value → the names of the nodes with it, as the index answers, each way it can be asked. */
function answered(index: NodeIndex, key: string): Map<string, Set<string>> {
  const values = new Map<string, Set<string>>();
  let carriers = 0;
  for (const [value, slots] of index.labelValues(key)) {
    const names = new Set([...slots.slots()].map((slot) => index.bySlot(slot)!.name));
    values.set(value, names);
    assert.deepEqual([...index.withLabelValue(key, value).slots()], [...slots.slots()]);
    carriers += names.size;
  }
  assert.equal(index.withLabel(key).size, carriers, `withLabel(${key})`);
  return values;
}

const step = fc.oneof(
  fc.record({
    kind: fc.constant('upsert' as const),
    name: fc.constantFrom(...NAMES),
    labels: fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom('a', 'b', 'c'), { maxKeys: 4 }),
  }),
  fc.record({ kind: fc.constant('remove' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('freeze' as const), ask: fc.subarray([...KEYS]) }),
);

test('every snapshot answers each label key as its nodes hold it, whenever the key was first asked about', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
      const table = new NodeTable();
      const nodes = new Map<string, Labels>();
      const frozen: { index: NodeIndex; nodes: Map<string, Labels> }[] = [];
      for (const change of steps) {
        if (change.kind === 'upsert') {
          table.upsert(facts(change.name, change.labels));
          nodes.set(change.name, change.labels);
        } else if (change.kind === 'remove') {
          table.remove(change.name);
          nodes.delete(change.name);
        } else {
          const index = table.freeze();
          const now = new Map(nodes);
          for (const key of change.ask) assert.deepEqual(answered(index, key), held(now, key), `asked for ${key}`);
          frozen.push({ index, nodes: now });
        }
      }
      // Later changes and demands leave what each snapshot answers as its own nodes held it.
      frozen.push({ index: table.freeze(), nodes });
      for (const { index, nodes: then } of frozen)
        for (const key of KEYS) assert.deepEqual(answered(index, key), held(then, key), `${key}, later`);
    }),
    { numRuns: 300 },
  );
});

test('a key first asked about before any node carries it is answered once nodes do', () => {
  const table = new NodeTable();
  table.upsert(facts('n0', { zone: 'a' }));
  assert.equal(table.freeze().labelValues('rack').size, 0);
  table.upsert(facts('n1', { zone: 'a', rack: 'r1' }));
  const index = table.freeze();
  assert.deepEqual(answered(index, 'rack'), new Map([['r1', new Set(['n1'])]]));
  table.upsert(facts('n1', { zone: 'a', rack: 'r2' }));
  table.upsert(facts('n2', { rack: 'r2' }));
  assert.deepEqual(answered(table.freeze(), 'rack'), new Map([['r2', new Set(['n1', 'n2'])]]));
  assert.deepEqual(answered(index, 'rack'), new Map([['r1', new Set(['n1'])]]), 'the snapshot before is unchanged');
});
