import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_PAGE_BYTES, PageBuffer } from '../../../../src/sources/topology/page-buffer.ts';

test('a page buffer holds the chunks appended since its reset, growing as it must', () => {
  const page = new PageBuffer();
  const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(64 * 1024, 97 + (i % 26)));
  for (const chunk of chunks) assert.equal(page.append(chunk), true);
  assert.deepEqual(page.view(), Buffer.concat(chunks));
  page.reset();
  assert.equal(page.append(Buffer.from('{"a":"é"}')), true);
  assert.equal(page.length, Buffer.byteLength('{"a":"é"}'));
  assert.equal(page.text(), '{"a":"é"}');
});

test('a page past the limit is refused, and what was appended stays', () => {
  const page = new PageBuffer();
  assert.equal(page.append(Buffer.from('abc')), true);
  const huge = new Uint8Array(new ArrayBuffer(MAX_PAGE_BYTES - 2));
  assert.equal(page.append(huge), false);
  assert.equal(page.text(), 'abc');
});
