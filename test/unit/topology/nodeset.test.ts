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

test('sets that start far from slot 0 agree with a plain Set on has, equals, with, without and wordsFor', () => {
  const far = fc.array(fc.nat({ max: 2_000 }), { maxLength: 20 });
  fc.assert(
    fc.property(far, far, fc.nat({ max: 2_100 }), (a, b, slot) => {
      const x = NodeSet.of(a);
      const sa = new Set(a);
      for (let probe = 0; probe <= 2_100; probe += 7) assert.equal(x.has(probe), sa.has(probe));
      assert.equal(x.has(slot), sa.has(slot));
      assert.equal(x.equals(NodeSet.of(b)), sa.size === new Set(b).size && [...sa].every((v) => b.includes(v)));
      assert.ok(
        x
          .with(slot)
          .without(slot)
          .equals(NodeSet.of([...sa].filter((v) => v !== slot))),
      );
      assert.ok(NodeSet.fromWords(x.wordsFor(slot)).equals(x));
      assert.deepEqual(
        [...NodeSet.fromWords(x.wordsFor(slot)).slots()],
        [...sa].sort((p, q) => p - q),
      );
    }),
    { numRuns: 200 },
  );
});
