// Named slot sets changed one slot at a time, drafted between freezes: whatever order slots come and go in (a list
// in slot order, a hostname's set of one far slot, slots below a draft's first word), a frozen set holds exactly
// the slots added and not removed since.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SlotSets } from '../../../../src/topology/cow/slot-sets.ts';

/** A small deterministic generator (mulberry32), so that a failure repeats. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('frozen sets hold the slots added and not removed, in any order, across freezes', () => {
  const next = random(42);
  const sets = new SlotSets();
  const expected = new Map<string, Set<number>>();
  for (let round = 0; round < 20; round++) {
    for (let change = 0; change < 300; change++) {
      const key = `k${Math.floor(next() * 5)}`;
      // Mostly far slots, in both directions from what a draft holds.
      const slot = Math.floor(next() * (next() < 0.5 ? 64 : 5_000));
      const slots = expected.get(key) ?? new Set<number>();
      expected.set(key, slots);
      if (next() < 0.7) {
        sets.add(key, slot);
        slots.add(slot);
      } else {
        sets.remove(key, slot);
        slots.delete(slot);
      }
    }
    const frozen = sets.freeze();
    for (const [key, slots] of expected) {
      const got = frozen.get(key);
      assert.deepEqual(
        got ? [...got.slots()] : [],
        [...slots].sort((a, b) => a - b),
        `${key} in round ${round}`,
      );
    }
  }
});

test('a list in slot order, one set per slot (as hostnames are), freezes each to its one slot', () => {
  const sets = new SlotSets();
  for (let slot = 0; slot < 2_000; slot++) {
    sets.add('all', slot);
    sets.add(`host-${slot}`, slot);
  }
  const frozen = sets.freeze();
  assert.equal(frozen.get('all')!.size, 2_000);
  for (const slot of [0, 31, 32, 1_999]) assert.deepEqual([...frozen.get(`host-${slot}`)!.slots()], [slot]);
});
