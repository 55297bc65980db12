// A list page loses the members nothing reads before it is parsed, and nothing else: the result parses to the
// same objects with those members deleted, whatever the strings around them hold.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MemberSkim } from '../../../src/kube/skim.ts';

const skimmed = (value: unknown, keys: readonly string[], objects: readonly string[] = []) =>
  JSON.parse(
    Buffer.concat(new MemberSkim({ arrays: keys, objects }).cut(Buffer.from(JSON.stringify(value)))).toString('utf8'),
  ) as unknown;

/** `value` without every member named by `keys` whose value is an array (by `objects`, an object), at any depth. */
function withoutArrays(value: unknown, keys: readonly string[], objects: readonly string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutArrays(item, keys, objects));
  if (typeof value !== 'object' || value === null) return value;
  const cut = (key: string, item: unknown) =>
    Array.isArray(item) ? keys.includes(key) : typeof item === 'object' && item !== null && objects.includes(key);
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => !cut(key, item))
      .map(([key, item]) => [key, withoutArrays(item, keys, objects)]),
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
  assert.deepEqual(Buffer.concat(new MemberSkim({ arrays: ['images'] }).cut(plain)), plain);
  const cut = Buffer.from('{"items":[{"status":{"images":[{"names":["a"]}');
  assert.deepEqual(Buffer.concat(new MemberSkim({ arrays: ['images'] }).cut(cut)), cut);
  const pretty = Buffer.from(JSON.stringify(node('a'), null, 2));
  assert.deepEqual(Buffer.concat(new MemberSkim({ arrays: ['images'] }).cut(pretty)), pretty);
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

test('object-valued members are cut by their own keys: an array under such a key stays, as does an object under an array key', () => {
  const page = {
    items: [
      {
        metadata: { name: 'a', annotations: { 'x"{': '"annotations":{' }, managedFields: [{ a: 1 }] },
        status: { nodeInfo: { kubeletVersion: 'v1' }, images: [{ names: ['{'] }], allocatable: { cpu: '4' } },
      },
      { nodeInfo: ['an array: kept'], managedFields: { an: 'object: kept' }, annotations: {} },
    ],
  };
  const [arrays, objects] = [
    ['managedFields', 'images'],
    ['annotations', 'nodeInfo'],
  ];
  const out = skimmed(page, arrays, objects);
  assert.deepEqual(out, withoutArrays(page, arrays, objects));
  assert.deepEqual(out, {
    items: [
      { metadata: { name: 'a' }, status: { allocatable: { cpu: '4' } } },
      { nodeInfo: ['an array: kept'], managedFields: { an: 'object: kept' } },
    ],
  });
});

test('any JSON skims as it parses with object keys too', () => {
  const [arrays, objects] = [['images'], ['nodeInfo', 'a']];
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string({ unit: fc.constantFrom('"', '[', ']', '{', '}', '\\', ',', ':', 'a', '"nodeInfo":{') }),
      fc.integer(),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('images', 'nodeInfo', 'a', 'x"nodeInfo'), tie('value'), { maxKeys: 4 }),
    ),
  }));
  fc.assert(
    fc.property(value, (json) => {
      assert.deepEqual(skimmed(json, arrays, objects), withoutArrays(json, arrays, objects));
    }),
    { numRuns: 5_000 },
  );
});

test('long strings, whose end is searched for rather than read byte by byte, skim as they parse', () => {
  const keys = ['images'];
  const long = fc.string({ unit: fc.constantFrom('"', '\\', ']', '[', '}', 'a', 'é', '"images":['), maxLength: 80 });
  const value = fc.dictionary(
    fc.constantFrom('images', 'names', 'a'),
    fc.oneof(long, fc.array(fc.oneof(long, fc.dictionary(fc.constantFrom('names', 'images'), long)), { maxLength: 4 })),
    { maxKeys: 3 },
  );
  fc.assert(
    fc.property(fc.array(value, { maxLength: 3 }), (json) => {
      assert.deepEqual(skimmed(json, keys), withoutArrays(json, keys));
    }),
    { numRuns: 5_000 },
  );
  const digest = `registry.example.com/a@sha256:${'0'.repeat(64)}\\"]`;
  assert.deepEqual(skimmed({ images: [{ names: [digest] }], kept: digest }, keys), { kept: digest });
});
