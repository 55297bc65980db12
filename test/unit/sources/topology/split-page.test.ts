// A list page's items cross to the main thread as the API server wrote them: only the List's envelope is parsed
// where the page is received, and a List laid out otherwise is parsed whole, never read wrong.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitPage } from '../../../../src/sources/topology/list.ts';

const items = [{ metadata: { name: 'a', labels: { note: '"items":[' } } }, { metadata: { name: 'b' } }];
const metadata = { resourceVersion: '7', continue: 'next-page' };

test("a List as the API server writes it: the items' own text, and the metadata before them", () => {
  const text = JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata, items });
  const page = splitPage(text);
  assert.deepEqual(page.metadata, metadata);
  assert.ok(text.includes(page.items), 'the items are a slice of the page, not written again');
  assert.deepEqual(JSON.parse(page.items), items);
  assert.deepEqual(JSON.parse(splitPage('{"kind":"NodeList","metadata":{},"items":[]}').items), []);
});

test("a List with the encoder's newline after it, or between its items, is split all the same", () => {
  const head = `{"kind":"NodeList","apiVersion":"v1","metadata":${JSON.stringify(metadata)},"items":[`;
  for (const text of [
    `${head}${items.map((item) => JSON.stringify(item)).join(',')}]}\n`,
    `${head}\n${items.map((item) => JSON.stringify(item)).join(',\n')}\n]}\n`,
  ]) {
    const page = splitPage(text);
    const slice = text.slice(head.length - 1, text.trimEnd().length - 1);
    assert.equal(page.items, slice, 'the items are a slice of the page, not written again');
    assert.deepEqual([JSON.parse(page.items), page.metadata], [items, metadata]);
  }
});

test('a List laid out otherwise is parsed whole: spaces, items first, items null', () => {
  for (const text of [
    JSON.stringify({ kind: 'NodeList', metadata, items }, null, 1),
    JSON.stringify({ items, metadata }),
    // An unstructured list (a custom resource's): its keys in order, so the items come before kind and metadata.
    `${JSON.stringify({ apiVersion: 'example.com/v1', items, kind: 'ThingList', metadata })}\n`,
    JSON.stringify({ kind: 'NodeList', metadata: { ...metadata, note: '"items":[1]}' }, items }),
  ]) {
    const page = splitPage(text);
    assert.deepEqual(page.metadata, JSON.parse(text).metadata, text);
    assert.deepEqual(JSON.parse(page.items), items, text);
  }
  const none = splitPage('{"kind":"NodeList","metadata":{"resourceVersion":"1"},"items":null}');
  assert.deepEqual([JSON.parse(none.items), none.metadata], [[], { resourceVersion: '1' }]);
});

test('a member after the items leaves items that do not parse: the list fails, it does not lose the member', () => {
  const page = splitPage('{"kind":"NodeList","metadata":{},"items":[{"a":1}],"metadata2":[2]}');
  assert.throws(() => JSON.parse(page.items), SyntaxError);
});
