// textHash: the decision memo's key (memo.ts). Only the text decides the number, and every text gets one V8
// holds as a small integer, however long or non-ASCII. recordHash: the same for a record of texts, member by member.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordHash, textHash } from '../../../src/memo/textHash.ts';

const TEXTS = [
  '',
  'a',
  'ab',
  'abcde',
  '{"namespace":"default","labels":{"app":"web"}}',
  'zone-é-ü-日本-🚀',
  'x'.repeat(5000) + 'é'.repeat(3000),
];

test('the same text gives the same number, wherever it comes from', () => {
  for (const text of TEXTS) {
    const copy = [...text].join('');
    assert.equal(textHash(copy), textHash(text));
    assert.equal(textHash(text, 7), textHash(copy, 7));
  }
});

test('every number is a non-negative 30-bit integer', () => {
  for (const text of TEXTS)
    for (const seed of [0, 1, 2 ** 31 + 5]) {
      const hash = textHash(text, seed);
      assert.ok(Number.isInteger(hash) && hash >= 0 && hash < 2 ** 30, `${hash}`);
    }
});

test('a text one character or one seed away gets another number', () => {
  const base = JSON.stringify({ labels: { app: 'web', 'bench.topogate.dev/sequence': '0' }, x: 'y'.repeat(1400) });
  const numbers = new Set<number>();
  for (let sequence = 0; sequence < 1000; sequence++) numbers.add(textHash(base.replace('"0"', `"${sequence}"`)));
  assert.equal(numbers.size, 1000);
  // The last bytes that make no whole word count too.
  assert.notEqual(textHash('abcdefg'), textHash('abcdefh'));
  assert.notEqual(textHash(base, 1), textHash(base, 2));
  // A long text is encoded in parts: a change in any of them counts, and a text hashed after it reads its own bytes.
  const before = textHash('ab');
  const long = 'z'.repeat(100_000);
  for (const at of [10, 5000, 99_999])
    assert.notEqual(textHash(long), textHash(`${long.slice(0, at)}y${long.slice(at + 1)}`), `a change at ${at}`);
  assert.equal(textHash('ab'), before);
});

test("a record's number comes from its members in order; one member, character or split away, another", () => {
  const labels = { app: 'web', 'bench.topogate.dev/sequence': '0', long: 'é'.repeat(300) };
  const copy = JSON.parse(JSON.stringify(labels)) as Record<string, string>;
  assert.equal(recordHash(copy), recordHash(labels));
  assert.equal(recordHash(copy, 9), recordHash(labels, 9));
  const numbers = new Set<number>();
  for (let sequence = 0; sequence < 1000; sequence++)
    numbers.add(recordHash({ ...labels, 'bench.topogate.dev/sequence': String(sequence) }));
  assert.equal(numbers.size, 1000);
  const others: Record<string, string>[] = [
    {},
    { app: 'web' },
    { app: 'we', b: '' },
    { appw: 'eb' },
    { web: 'app' },
    { app: 'web', long: 'é'.repeat(299) + 'e' },
    { long: 'é'.repeat(300), app: 'web' },
  ];
  const seen = new Set(others.map((record) => recordHash(record)));
  assert.equal(seen.size, others.length);
  assert.notEqual(recordHash(labels, 1), recordHash(labels, 2));
  for (const record of others) {
    const hash = recordHash(record, 2 ** 31 + 5);
    assert.ok(Number.isInteger(hash) && hash >= 0 && hash < 2 ** 30, `${hash}`);
  }
});
