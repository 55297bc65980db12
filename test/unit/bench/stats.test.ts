import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median, percentiles, quantile } from '../../../bench/stats.ts';

test('quantile is nearest-rank over sorted samples', () => {
  const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(quantile(sorted, 0.5), 50);
  assert.equal(quantile(sorted, 0.99), 99);
  assert.equal(quantile(sorted, 1), 100);
  assert.equal(quantile(sorted, 0), 1);
  assert.ok(Number.isNaN(quantile([], 0.5)));
});

test('percentiles sort their samples first', () => {
  assert.deepEqual(percentiles([5, 1, 4, 2, 3]), { p50: 3, p99: 5, max: 5, count: 5 });
  assert.equal(median([9, 1, 5]), 5);
});
