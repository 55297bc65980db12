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

/** FNV-1a's steps over the UTF-8 bytes four at a time (so not fnv1a's value); 30 bits, a small integer to V8. */
export function textHash(text: string, seed = 0): number {
  let hash = Math.imul(FNV_OFFSET ^ seed, FNV_PRIME) ^ text.length;
  for (let start = 0; start < text.length; start += CHUNK) {
    const { written } = utf8.encodeInto(text.length <= CHUNK ? text : text.slice(start, start + CHUNK), bytes);
    const whole = written >> 2;
    for (let index = 0; index < whole; index++) hash = Math.imul(hash ^ words[index]!, FNV_PRIME);
    for (let index = whole << 2; index < written; index++) hash = Math.imul(hash ^ bytes[index]!, FNV_PRIME);
  }
  return hash & 0x3fffffff;
}
