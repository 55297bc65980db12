import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median, medianSorted, quantile, quantileSorted } from '../../../src/stats/order.ts';

test('the median is the middle value, or the mean of the two middle ones', () => {
  assert.equal(median([9, 1, 5]), 5);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7]), 7);
  assert.equal(median([-2, 10]), 4);
  assert.equal(medianSorted(Float32Array.of(1, 2, 3, 4, 5, 6).subarray(0, 4)), 2.5);
});

test('a quantile is nearest-rank: always one of the values', () => {
  const ten = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
  assert.equal(quantile(ten, 0.1), 1);
  assert.equal(quantile(ten, 0.11), 2);
  assert.equal(quantile(ten, 0.5), 5);
  assert.equal(quantile(ten, 0.9), 9);
  assert.equal(quantile(ten, 0.99), 10);
  assert.equal(quantile([1, 2, 3, 4], 0.5), 2);
  const hundred = Float64Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(quantileSorted(hundred, 0.5), 50);
  assert.equal(quantileSorted(hundred, 0.99), 99);
});

test('q = 0 is the smallest value, q = 1 the largest, and q outside 0..1 stays at those ends', () => {
  const values = [3, -1, 8, 0.5];
  assert.equal(quantile(values, 0), -1);
  assert.equal(quantile(values, 1), 8);
  assert.equal(quantile(values, -0.5), -1);
  assert.equal(quantile(values, 2), 8);
});

test('values in any order are sorted as numbers, not as text, and left as they were', () => {
  const values = [100, 9, 20, 3];
  assert.equal(median(values), 14.5);
  assert.equal(quantile(values, 0.75), 20);
  assert.deepEqual(values, [100, 9, 20, 3]);
});

test('no values answer NaN', () => {
  assert.ok(Number.isNaN(median([])));
  assert.ok(Number.isNaN(medianSorted(new Float64Array(0))));
  assert.ok(Number.isNaN(quantile([], 0.5)));
  assert.ok(Number.isNaN(quantileSorted([], 1)));
});
