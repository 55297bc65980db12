// A number standing for a text, for a map whose keys are texts that are
// mostly new: the decision memo's, each new Pod's facts (~1.4 KB). V8
// internalizes a string used as a Map key, even by a lookup that misses: it
// copies the string into its string table, in the old generation, where only
// a full collection frees it. Keyed by the facts themselves, the memo left
// 1.3 KB of old-generation garbage per new Pod (docs/benchmarks.md, "Fifth
// look"). A number is no string. Texts may share a number: a map keyed by it
// keeps each entry's text, to compare.

import { FNV_OFFSET, FNV_PRIME } from '../kube/fnv1a.ts';

/** UTF-16 code units encoded at a time: one pass for any Pod's facts but the largest, and a fixed buffer. */
const CHUNK = 4096;
/** UTF-8 takes at most 3 bytes per UTF-16 code unit; reused by every call, so a hash allocates nothing. */
const bytes = new Uint8Array(CHUNK * 3);
const words = new Int32Array(bytes.buffer);
const utf8 = new TextEncoder();

/** bytesHash over the text's UTF-8 bytes, a chunk at a time; 30 bits, a small integer to V8. */
export function textHash(text: string, seed = 0): number {
  let hash = seed ^ text.length;
  for (let start = 0; start < text.length; start += CHUNK) {
    const { written } = utf8.encodeInto(text.length <= CHUNK ? text : text.slice(start, start + CHUNK), bytes);
    hash = bytesHash(bytes, words, written, hash);
  }
  return hash & 0x3fffffff;
}

/** Past this many UTF-16 units a text is hashed by textHash's four lanes, not one step per unit. */
const LONG_TEXT = 256;

/**
 * FNV-1a's steps over a text after `hash`, first its length (so that texts in a row do not run together): a step
 * per UTF-16 unit, and no encoding, for the short texts of a key (names, label values); a long one by textHash.
 */
export function textSteps(hash: number, text: string): number {
  if (text.length > LONG_TEXT) return Math.imul(hash ^ textHash(text), FNV_PRIME);
  let next = Math.imul(hash ^ text.length, FNV_PRIME);
  for (let index = 0; index < text.length; index++) next = Math.imul(next ^ text.charCodeAt(index), FNV_PRIME);
  return next;
}

/**
 * A number for a record of texts (labels, annotations), from its members in their order: what textHash of its JSON
 * text would tell apart, without making the text. 30 bits.
 */
export function recordHash(record: Readonly<Record<string, string>>, seed = 0): number {
  let hash = Math.imul(FNV_OFFSET ^ seed, FNV_PRIME);
  for (const key in record) hash = textSteps(textSteps(hash, key), record[key]!);
  return hash & 0x3fffffff;
}

/**
 * FNV-1a's steps over the first `length` bytes of `bytes`, four at a time, in four lanes (so not fnv1a's value);
 * `words` views the same memory. One chain waits on each multiplication: four independent ones took a third of
 * the time over a 10 KB request body. 30 bits.
 */
export function bytesHash(bytes: Uint8Array, words: Int32Array, length: number, seed = 0): number {
  const whole = length >> 2;
  let a = Math.imul(FNV_OFFSET ^ seed, FNV_PRIME);
  let b = FNV_OFFSET ^ 1;
  let c = FNV_OFFSET ^ 2;
  let d = FNV_OFFSET ^ 3;
  let index = 0;
  for (; index + 4 <= whole; index += 4) {
    a = Math.imul(a ^ words[index]!, FNV_PRIME);
    b = Math.imul(b ^ words[index + 1]!, FNV_PRIME);
    c = Math.imul(c ^ words[index + 2]!, FNV_PRIME);
    d = Math.imul(d ^ words[index + 3]!, FNV_PRIME);
  }
  for (; index < whole; index++) a = Math.imul(a ^ words[index]!, FNV_PRIME);
  for (let at = whole << 2; at < length; at++) b = Math.imul(b ^ bytes[at]!, FNV_PRIME);
  let hash = Math.imul(a ^ length, FNV_PRIME);
  hash = Math.imul(hash ^ b, FNV_PRIME);
  hash = Math.imul(hash ^ c, FNV_PRIME);
  return Math.imul(hash ^ d, FNV_PRIME) & 0x3fffffff;
}
