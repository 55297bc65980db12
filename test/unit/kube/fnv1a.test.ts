import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FNV_OFFSET, FNV_PRIME, fnv1a } from '../../../src/kube/fnv1a.ts';

/** FNV-1a as its definition reads: byte by byte over the UTF-8 encoding. */
function byteByByte(text: string): number {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, FNV_PRIME) >>> 0;
  return hash;
}

test('the published FNV-1a 32-bit test vectors', () => {
  assert.equal(fnv1a(''), 0x811c9dc5);
  assert.equal(fnv1a('a'), 0xe40c292c);
  assert.equal(fnv1a('foobar'), 0xbf9cf968);
});

test('over the UTF-8 bytes, also past the first character that is not ASCII', () => {
  for (const text of ['é', 'zone-ü', 'rack/東京-1', 'a\u{1F600}b', 'lone \uD800 surrogate'])
    assert.equal(fnv1a(text), byteByByte(text), text);
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => fnv1a(text) === byteByByte(text)));
});
