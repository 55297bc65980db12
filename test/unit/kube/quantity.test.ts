import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatQuantity, parseQuantity } from '../../../src/kube/quantity.ts';

test('parses quantities to milli-units as the API server does', () => {
  const cases: [unknown, number | undefined][] = [
    ['1', 1000],
    ['100m', 100],
    ['0.1', 100],
    ['1.5m', 2],
    ['1Ki', 1024_000],
    ['1Gi', 1073741824_000],
    ['2k', 2_000_000],
    ['1e3', 1_000_000],
    ['128974848', 128974848_000],
    ['129M', 129_000_000_000],
    [4, 4000],
    ['', undefined],
    ['1.2.3', undefined],
    ['10 Gi', undefined],
    ['abc', undefined],
    [null, undefined],
    [{}, undefined],
  ];
  for (const [input, expected] of cases)
    assert.equal(parseQuantity(input), expected, `parseQuantity(${JSON.stringify(input)})`);
});

test('formats milli-units back to a quantity', () => {
  assert.equal(formatQuantity(2000), '2');
  assert.equal(formatQuantity(1500), '1500m');
  assert.equal(parseQuantity(formatQuantity(123456)), 123456);
});
