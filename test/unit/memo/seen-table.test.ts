import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SeenTable } from '../../../src/memo/seenTable.ts';

test('a number is met once before it is seen, and stays seen while its slot is its own', () => {
  const table = new SeenTable(4);
  assert.equal(table.saw(0), false, 'zero is a number like any other, not an empty slot');
  assert.equal(table.saw(0), true);
  assert.equal(table.saw(0x3fffffff), false);
  assert.equal(table.saw(0x3fffffff), true, 'the largest 30-bit number');
  assert.equal(table.saw(0), true, 'numbers in other slots are kept');
});

test('a number that falls in a slot displaces the one there: "not seen" can be wrong, "seen" cannot', () => {
  const table = new SeenTable(4);
  table.saw(5);
  assert.equal(table.saw(5 + 16), false, 'same slot, another number: not taken for the first');
  assert.equal(table.saw(5), false, 'the first was displaced');
  assert.equal(table.saw(5), true);
  assert.equal(table.saw(6), false);
});
