// A list page's bytes without the arrays that nothing reads, cut out before
// JSON.parse builds them: a Node's image list was over half of its JSON at
// 65,000 nodes, a Pod's statuses and volumes much of its. The cut is made on
// bytes, in one pass for every key: each array-valued member ends its key with
// `":[`, and in valid JSON a `"key":[` whose opening quote is not escaped is a
// key (inside a string that quote would be). The array's end is found by
// counting brackets outside strings. Anything unexpected leaves the bytes as
// they were, for JSON.parse to judge.

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

/**
 * The member `"key":[…]` found at `at`, with the comma that joins it to a neighbour: [from, to), or undefined. The
 * comma before it is the one to go unless a member cut just before took it (it lies before `cursor`).
 */
function memberRange(bytes: Buffer, at: number, keyLength: number, cursor: number): [number, number] | undefined {
  const end = valueEnd(bytes, at + keyLength - 1);
  if (end < 0) return undefined;
  if (bytes[at - 1] === COMMA && at - 1 >= cursor) return [at - 1, end];
  if (bytes[end] === COMMA) return [at, end + 1];
  return [at, end];
}

/** What closes every key of an array-valued member: the one sequence searched for, whatever the keys. */
const ARRAY_MEMBER = Buffer.from('":[');

/** The patterns `"key":[` by their length, longest first. */
function byLength(keys: readonly string[]): [number, Buffer[]][] {
  const groups = new Map<number, Buffer[]>();
  for (const key of keys) {
    const pattern = Buffer.from(`${JSON.stringify(key)}:[`);
    groups.set(pattern.length, [...(groups.get(pattern.length) ?? []), pattern]);
  }
  return [...groups].sort(([a], [b]) => b - a);
}

/** Where one of the patterns ends at `end` with its opening quote unescaped (a key, not a string's inside), or -1. */
function keyAt(bytes: Buffer, end: number, patterns: [number, Buffer[]][], cursor: number): number {
  for (const [length, group] of patterns) {
    const at = end - length;
    // A byte read rules out almost every array member of another key before any comparison.
    if (at < cursor || bytes[at] !== QUOTE) continue;
    for (const pattern of group) if (bytes.compare(pattern, 0, length, at, end) === 0 && !escaped(bytes, at)) return at;
  }
  return -1;
}

/**
 * `bytes` (compact JSON, as the API server writes it) without every member whose key is one of `keys` and whose
 * value is an array, as the pieces that are left, in order (views of `bytes`). Pretty-printed JSON, which has spaces
 * the patterns do not, passes through whole. One pass over the bytes, however many keys.
 */
export function skimArrays(bytes: Buffer, keys: readonly string[]): Buffer[] {
  const patterns = byLength(keys);
  const kept: Buffer[] = [];
  let cursor = 0;
  for (let hit = bytes.indexOf(ARRAY_MEMBER); hit >= 0;) {
    const at = keyAt(bytes, hit + ARRAY_MEMBER.length, patterns, cursor);
    const range = at < 0 ? undefined : memberRange(bytes, at, hit + ARRAY_MEMBER.length - at, cursor);
    if (at >= 0 && range === undefined) break;
    if (range !== undefined) {
      kept.push(bytes.subarray(cursor, range[0]));
      cursor = range[1];
    }
    hit = bytes.indexOf(ARRAY_MEMBER, range === undefined ? hit + 1 : cursor);
  }
  kept.push(bytes.subarray(cursor));
  return kept;
}
