// The one backoff every list + watch and write loop retries by: doubling, capped, jittered, reset by a success.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Backoff } from '../../../src/kube-client/backoff.ts';

const delays = (backoff: Backoff, count: number) => Array.from({ length: count }, () => backoff.next());

test('without jitter each failure doubles the delay up to the cap, and a success starts over', () => {
  const backoff = new Backoff({ initialMs: 500, maxMs: 30_000, jitter: 0 });
  assert.deepEqual(delays(backoff, 9), [500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  backoff.reset();
  assert.deepEqual(delays(backoff, 2), [500, 1000]);
});

test('jitter takes up to its share off each delay, never adds to it', () => {
  const low = new Backoff({ initialMs: 1000, maxMs: 4000, jitter: 0.2, random: () => 0.999_999 });
  assert.deepEqual(delays(low, 4), [800, 1600, 3200, 3200]);
  const high = new Backoff({ initialMs: 1000, maxMs: 4000, jitter: 0.2, random: () => 0 });
  assert.deepEqual(delays(high, 4), [1000, 2000, 4000, 4000]);
});

test('a long outage stays at the cap and never overflows', () => {
  const backoff = new Backoff({ initialMs: 1, maxMs: Number.MAX_SAFE_INTEGER, jitter: 0 });
  const last = delays(backoff, 2000).at(-1)!;
  assert.equal(last, Number.MAX_SAFE_INTEGER);
});
