import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatQuantity, parseQuantity, parseRepeatedQuantity } from '../../../src/kube/quantity.ts';

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
  for (const [input, expected] of cases) {
    assert.equal(parseQuantity(input), expected, `parseQuantity(${JSON.stringify(input)})`);
    // Remembered, the second answer is the first: invalid ones included.
    for (let sight = 0; sight < 2; sight++)
      assert.equal(parseRepeatedQuantity(input), expected, `parseRepeatedQuantity(${JSON.stringify(input)})`);
  }
});

test('remembered quantities stay right past the limit of what is remembered', () => {
  for (let i = 0; i < 10_000; i++) assert.equal(parseRepeatedQuantity(`${i}Ki`), i * 1_024_000);
  for (let i = 0; i < 10_000; i += 997) assert.equal(parseRepeatedQuantity(`${i}Ki`), i * 1_024_000);
});

test('formats milli-units back to a quantity', () => {
  assert.equal(formatQuantity(2000), '2');
  assert.equal(formatQuantity(1500), '1500m');
  assert.equal(parseQuantity(formatQuantity(123456)), 123456);
});

test('a whole number with a suffix parses as exactly as the general path, up to the largest safe integer', () => {
  const milliPer: Record<string, bigint> = {
    '': 1000n,
    m: 1n,
    k: 10n ** 6n,
    M: 10n ** 9n,
    G: 10n ** 12n,
    T: 10n ** 15n,
    Ki: 1024n * 1000n,
    Mi: 1024n ** 2n * 1000n,
    Gi: 1024n ** 3n * 1000n,
    Ti: 1024n ** 4n * 1000n,
  };
  let seed = 7;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  for (let i = 0; i < 5_000; i++) {
    const digits = String(next())
      .repeat(1 + (i % 3))
      .slice(0, 1 + (i % 15));
    for (const [suffix, factor] of Object.entries(milliPer)) {
      const exact = BigInt(digits) * factor;
      assert.equal(parseQuantity(`${digits}${suffix}`), Number(exact), `${digits}${suffix}`);
    }
  }
  // Past 2^53 the general path answers, as before: the nearest number to the exact amount.
  assert.equal(parseQuantity('999999999999999T'), Number(999_999_999_999_999n * 10n ** 15n));
});
