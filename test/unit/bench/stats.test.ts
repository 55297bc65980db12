import assert from 'node:assert/strict';
import { test } from 'node:test';
import { percentiles } from '../../../bench/stats.ts';

test('percentiles sort their samples first, nearest-rank', () => {
  assert.deepEqual(percentiles([5, 1, 4, 2, 3]), { p50: 3, p99: 5, max: 5, count: 5 });
  assert.deepEqual(percentiles([40, 10, 30, 20]), { p50: 20, p99: 40, max: 40, count: 4 });
  assert.deepEqual(percentiles([]), { p50: Number.NaN, p99: Number.NaN, max: Number.NaN, count: 0 });
});
