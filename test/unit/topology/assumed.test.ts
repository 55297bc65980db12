// Admitted Pods counted before their watch events: an arrival takes the
// oldest assumption of its workload held the same way (any of its workload
// when it arrives bound), expiry lets go of the oldest first, and the count is
// bounded.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AssumedPods, MOST_ASSUMED } from '../../../src/topology/assumed.ts';
import type { PendingUsage } from '../../../src/topology/read/pod-usage.ts';

const held = (workload: string, zone: string): PendingUsage => ({
  workload,
  heldTo: { zone },
  requests: { cpu: 1000 },
});

test('an arriving Pod takes the oldest assumption of its workload held as it is', () => {
  const assumed = new AssumedPods();
  const [a1, b1, a2] = [held('w', 'a'), held('w', 'b'), held('w', 'a')];
  assumed.add(a1, 10);
  assumed.add(b1, 20);
  assumed.add(a2, 30);
  assert.equal(assumed.take(held('other', 'a')), undefined, 'another workload takes none');
  assert.equal(assumed.take(held('w', 'c')), undefined, 'held elsewhere takes none');
  assert.equal(assumed.take(held('w', 'a')), a1);
  assert.equal(assumed.take({ workload: 'w', node: 'n1', requests: {} }), b1, 'bound: the oldest of its workload');
  assert.equal(assumed.size, 1);
  assert.equal(assumed.take(held('w', 'a')), a2);
  assert.equal(assumed.take(held('w', 'a')), undefined, 'each assumption is taken once');
});

test('expiry lets go of those due, oldest first, and says when the next is due', () => {
  const assumed = new AssumedPods();
  const [first, second] = [held('w', 'a'), held('w', 'b')];
  assumed.add(first, 10);
  assumed.add(second, 20);
  assert.deepEqual(assumed.expire(9), []);
  assert.equal(assumed.nextExpiry(), 10);
  assert.deepEqual(assumed.expire(15), [first]);
  assert.equal(assumed.nextExpiry(), 20);
  assert.deepEqual(assumed.expire(20), [second]);
  assert.equal(assumed.nextExpiry(), undefined);
});

test('past the bound the oldest assumption is given back to be uncounted', () => {
  const assumed = new AssumedPods();
  const oldest = held('w', 'first');
  assumed.add(oldest, 1);
  for (let index = 1; index < MOST_ASSUMED; index++) assert.equal(assumed.add(held('w', 'a'), 2), undefined);
  assert.equal(assumed.add(held('w', 'a'), 3), oldest);
  assert.equal(assumed.size, MOST_ASSUMED);
});
