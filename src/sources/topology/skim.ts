// A list page's bytes without the arrays that nothing reads, cut out before
// JSON.parse builds them: a Node's image list was over half of its JSON at
// 65,000 nodes, and parsing it (then collecting it) was most of the time to the
// first snapshot. The cut is made on bytes: in valid JSON the sequence
// `"key":[` occurs only where an object has that key (inside a string its
// opening quote would be escaped), and the array's end is found by counting brackets
// outside strings. Anything unexpected leaves the bytes as they were, for
// JSON.parse to judge.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
function escaped(bytes: Buffer, at: number): boolean {
  let backslashes = 0;
  while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/** Where the string opened at `open` closes (its closing quote), or -1 when the bytes end first. */
function stringEnd(bytes: Buffer, open: number): number {
  let at = open;
  do at = bytes.indexOf(QUOTE, at + 1);
  while (at >= 0 && escaped(bytes, at));
  return at;
}

/** The next `pattern` at or after `from` whose opening quote is not escaped (one inside a string), or -1. */
function nextKey(bytes: Buffer, pattern: Buffer, from: number): number {
  let at = bytes.indexOf(pattern, from);
  while (at >= 0 && escaped(bytes, at)) at = bytes.indexOf(pattern, at + 1);
  return at;
}

/** Just past the array or object that opens at `start`, or -1 when the bytes end first. */
function valueEnd(bytes: Buffer, start: number): number {
  let depth = 0;
  for (let at = start; at < bytes.length; at++) {
    const byte = bytes[at];
    if (byte === QUOTE) {
      at = stringEnd(bytes, at);
      if (at < 0) return -1;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) depth++;
    else if ((byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) && --depth === 0) return at + 1;
  }
  return -1;
}

/** The member `"key":[…]` found at `at`, with the comma that joins it to a neighbour: [from, to), or undefined. */
function memberRange(bytes: Buffer, at: number, keyLength: number): [number, number] | undefined {
  const end = valueEnd(bytes, at + keyLength - 1);
  if (end < 0) return undefined;
  if (bytes[at - 1] === COMMA) return [at - 1, end];
  if (bytes[end] === COMMA) return [at, end + 1];
  return [at, end];
}

/**
 * `bytes` (compact JSON, as the API server writes it) without every member whose key is one of `keys` and whose
 * value is an array, as the pieces that are left, in order (views of `bytes`). Pretty-printed JSON, which has spaces
 * the patterns do not, passes through whole.
 */
export function skimArrays(bytes: Buffer, keys: readonly string[]): Buffer[] {
  const patterns = keys.map((key) => Buffer.from(`${JSON.stringify(key)}:[`));
  const next = patterns.map((pattern) => nextKey(bytes, pattern, 0));
  const kept: Buffer[] = [];
  let cursor = 0;
  for (;;) {
    let which = -1;
    for (let i = 0; i < next.length; i++) if (next[i]! >= 0 && (which < 0 || next[i]! < next[which]!)) which = i;
    if (which < 0) break;
    const range = memberRange(bytes, next[which]!, patterns[which]!.length);
    if (range === undefined) break;
    kept.push(bytes.subarray(cursor, range[0]));
    cursor = range[1];
    for (let i = 0; i < next.length; i++)
      if (next[i]! >= 0 && next[i]! < cursor) next[i] = nextKey(bytes, patterns[i]!, cursor);
  }
  kept.push(bytes.subarray(cursor));
  return kept;
}
