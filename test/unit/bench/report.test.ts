import assert from 'node:assert/strict';
import { test } from 'node:test';
import { offBy } from '../../../bench/report.ts';

test('a miss of a few per cent reads as per cent, a large one as a factor', () => {
  assert.equal(offBy(0.9 / 0.86, 'under'), '5 % under');
  assert.equal(offBy(1.001, 'over'), '1 % over', 'never "0 %" for a miss');
  assert.equal(offBy(1.87, 'over'), '1.9× over');
});
