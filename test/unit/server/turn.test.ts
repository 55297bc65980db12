import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextStage, turnGate } from '../../../src/server/turn.ts';

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

test('awaiting nextStage queues a caller behind every caller already resumed', async () => {
  const order: string[] = [];
  const caller = async (name: string) => {
    order.push(`${name}1`);
    await nextStage();
    order.push(`${name}2`);
  };
  await Promise.all([caller('a'), caller('b'), caller('c')]);
  assert.deepEqual(order, ['a1', 'b1', 'c1', 'a2', 'b2', 'c2']);
});
