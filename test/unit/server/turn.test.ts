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

test('a turn that reaches its limit starts at once, and the next caller opens a new turn', async () => {
  const endOfTurn = turnGate(3);
  const full = [endOfTurn(), endOfTurn(), endOfTurn()];
  assert.equal(new Set(full).size, 1, 'the three share one turn');
  const next = endOfTurn();
  assert.notEqual(next, full[0], 'the fourth caller is in the next turn');
  let fullStarted = false;
  let nextStarted = false;
  void full[0]!.then(() => (fullStarted = true));
  void next.then(() => (nextStarted = true));
  await new Promise((resolve) => process.nextTick(resolve));
  assert.equal(fullStarted, true, 'the full turn did not wait for the end of the I/O');
  assert.equal(nextStarted, false, 'a turn short of its limit still waits for it');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(nextStarted, true);
});
