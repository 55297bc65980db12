// A list page loses the arrays nothing reads before it is parsed, and nothing else: the result parses to the
// same objects with those members deleted, whatever the strings around them hold.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ArraySkim } from '../../../src/kube/skim.ts';

const skimmed = (value: unknown, keys: readonly string[]) =>
  JSON.parse(Buffer.concat(new ArraySkim(keys).cut(Buffer.from(JSON.stringify(value)))).toString('utf8')) as unknown;

/** `value` with every member named by `keys` whose value is an array deleted, at any depth. */
function withoutArrays(value: unknown, keys: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutArrays(item, keys));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => !(keys.includes(key) && Array.isArray(item)))
      .map(([key, item]) => [key, withoutArrays(item, keys)]),
  );
}

const node = (name: string) => ({
  metadata: {
    name,
    labels: { 'kubernetes.io/hostname': name },
    managedFields: [{ manager: 'kubelet', fieldsV1: { 'f:status': { 'k:{"type":"Ready"}': {} } } }],
  },
  status: {
    allocatable: { cpu: '4' },
    images: [{ names: ['registry.example.com/a@sha256:00', 'a:v1'], sizeBytes: 5 }],
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
  },
});

test('the named arrays are cut wherever they are, with the commas that joined them', () => {
  const page = {
    kind: 'NodeList',
    metadata: { resourceVersion: '7' },
    items: [
      node('a'),
      { images: [], metadata: { managedFields: [[], {}] } },
      { managedFields: [1], images: [2], name: 'two cut in a row, first in their object' },
      node('b'),
    ],
  };
  const keys = ['managedFields', 'images'];
  const out = skimmed(page, keys);
  assert.deepEqual(out, withoutArrays(page, keys));
  assert.equal(JSON.stringify(out).includes('sha256'), false);
  assert.equal(JSON.stringify(out).includes('kubelet'), false);
});

test('strings that look like the keys or hold brackets and escaped quotes are left whole', () => {
  const tricky = {
    metadata: {
      annotations: {
        note: '"images":[1,2] and ] and [ and \\"images\\":[',
        'x"images': 'value',
        'y"images': [1, 2],
        slash: 'ends in a backslash \\',
      },
      managedFields: [{ fieldsV1: { 'k:{"name":"]"}': { '.': {} } }, manager: 'a "quoted" [name]' }],
    },
    status: { images: [{ names: ['with ] bracket', 'with \\" quote', 'with "images":[ inside'] }] },
    images: 'a string, not an array: kept',
  };
  const keys = ['managedFields', 'images'];
  assert.deepEqual(skimmed(tricky, keys), withoutArrays(tricky, keys));
});

test('bytes with nothing to cut, or an array that never closes, come back as they were', () => {
  const plain = Buffer.from('{"items":[{"metadata":{"name":"a"}}]}');
  assert.deepEqual(Buffer.concat(new ArraySkim(['images']).cut(plain)), plain);
  const cut = Buffer.from('{"items":[{"status":{"images":[{"names":["a"]}');
  assert.deepEqual(Buffer.concat(new ArraySkim(['images']).cut(cut)), cut);
  const pretty = Buffer.from(JSON.stringify(node('a'), null, 2));
  assert.deepEqual(Buffer.concat(new ArraySkim(['images']).cut(pretty)), pretty);
});

test('any JSON, with the keys at any depth and strings of quotes, brackets and backslashes, skims as it parses', () => {
  const keys = ['images', 'managedFields'];
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string({ unit: fc.constantFrom('"', '[', ']', '{', '}', '\\', ',', ':', 'a', 'é', '"images":[') }),
      fc.integer(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.array(tie('value'), { maxLength: 2 }),
      fc.dictionary(fc.constantFrom('images', 'managedFields', 'a', 'x"images', 'images\\'), tie('value'), {
        maxKeys: 4,
      }),
    ),
  }));
  fc.assert(
    fc.property(value, (json) => {
      assert.deepEqual(skimmed(json, keys), withoutArrays(json, keys));
    }),
    { numRuns: 5_000 },
  );
});
