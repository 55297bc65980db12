import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { NodeSet } from '../../../src/topology/nodeset.ts';

const slotLists = fc.array(fc.nat({ max: 200 }), { maxLength: 60 });

test('NodeSet agrees with a plain Set under and, or, andNot', () => {
  fc.assert(
    fc.property(slotLists, slotLists, (a, b) => {
      const x = NodeSet.of(a);
      const y = NodeSet.of(b);
      const sa = new Set(a);
      const sb = new Set(b);
      const sorted = (s: Iterable<number>) => [...s].sort((p, q) => p - q);
      assert.deepEqual(sorted(x.and(y).slots()), sorted([...sa].filter((v) => sb.has(v))));
      assert.deepEqual(sorted(x.or(y).slots()), sorted(new Set([...sa, ...sb])));
      assert.deepEqual(sorted(x.andNot(y).slots()), sorted([...sa].filter((v) => !sb.has(v))));
      assert.equal(x.size, sa.size);
      assert.equal(x.isEmpty(), sa.size === 0);
    }),
    { numRuns: 200 },
  );
});

test('with and without leave the original set unchanged', () => {
  const base = NodeSet.of([1, 40]);
  const added = base.with(70);
  const removed = base.without(1);
  assert.deepEqual([...base.slots()], [1, 40]);
  assert.deepEqual([...added.slots()], [1, 40, 70]);
  assert.deepEqual([...removed.slots()], [40]);
  assert.ok(base.with(40) === base, 'adding a present slot returns the same set');
});

test('equals ignores trailing empty words', () => {
  assert.ok(NodeSet.of([3]).equals(NodeSet.of([3, 300]).without(300)));
  assert.ok(!NodeSet.of([3]).equals(NodeSet.of([4])));
  assert.ok(NodeSet.EMPTY.equals(NodeSet.of([])));
});
