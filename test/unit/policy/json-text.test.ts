// jsonList gives JSON.stringify's bytes, from each item's text made once per object (record.ts joins the
// decision record from them).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonList, jsonText } from '../../../src/policy/jsonText.ts';

test('jsonList is JSON.stringify of the list', () => {
  const lists: unknown[][] = [
    [],
    [{ key: 'a', operator: 'In', values: ['x', 'y"z'] }, 'text', 3, null, true],
    [{ weight: 1, preference: { matchExpressions: [] }, missing: undefined }, [1, [2, { 10: 'n', b: 'é\n' }]]],
  ];
  for (const list of lists) assert.equal(jsonList(list), JSON.stringify(list));
});

test("an object's text is made once and kept while the object lives", () => {
  const term = { weight: 1 };
  assert.equal(jsonText(term), '{"weight":1}');
  term.weight = 2;
  assert.equal(jsonText(term), '{"weight":1}', 'outputs are never changed, so the first text stands');
  assert.equal(jsonText({ weight: 2 }), '{"weight":2}');
});
