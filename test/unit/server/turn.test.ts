import assert from 'node:assert/strict';
import { test } from 'node:test';
import { turnGate } from '../../../src/server/turn.ts';

test('every caller in one turn waits for the same end of its I/O, and the next turn gets a new one', async () => {
  const endOfTurn = turnGate();
  const first = endOfTurn();
  assert.equal(endOfTurn(), first, 'one wait for the whole turn');
  let released = false;
  void first.then(() => (released = true));
  await Promise.resolve();
  await new Promise((resolve) => process.nextTick(resolve));
  assert.equal(released, false, 'not before the turn is over');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(released, true);
  assert.notEqual(endOfTurn(), first);
});
