// Reading a map of strings from untrusted JSON: the map itself when it is one, else a copy of its strings only.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resourceList, stringMap } from '../../../../src/topology/read/fields.ts';

test('a map whose values are all strings is read as itself, not copied', () => {
  const labels = { 'kubernetes.io/hostname': 'a', zone: 'z1', empty: '' };
  assert.equal(stringMap(labels), labels);
});

test('values that are not strings are left out of a copy; the map read is left as it was', () => {
  const mixed = { zone: 'z1', count: 3, nested: { a: 'b' }, none: null };
  const read = stringMap(mixed);
  assert.deepEqual(read, { zone: 'z1' });
  assert.notEqual(read, mixed);
  assert.deepEqual(mixed, { zone: 'z1', count: 3, nested: { a: 'b' }, none: null });
  for (const value of [undefined, null, 'labels', ['a'], 7]) assert.deepEqual(stringMap(value), {});
});

test('a resource list keeps its valid quantities, in milli-units', () => {
  assert.deepEqual(resourceList({ cpu: '1500m', memory: '1Ki', pods: 110, bad: '1.2.3', gpu: {} }), {
    cpu: 1500,
    memory: 1_024_000,
    pods: 110_000,
  });
  assert.deepEqual(resourceList(['1']), {});
});
