// JSON without the members that nothing reads, cut out of the bytes before
// JSON.parse builds them: a Node's image list was over half of its JSON at
// 65,000 nodes, a Pod's managedFields, statuses and volumes much of its. The
// cut is made in one pass for every key: each array-valued member ends its key
// with `":[` (an object-valued one with `":{`), and in valid JSON a `"key":[`
// whose opening quote is not escaped is a key (inside a string that quote
// would be). The value's end is found by counting brackets outside strings.
// Anything unexpected leaves the bytes as they were, for JSON.parse to judge.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COLON = 0x3a;

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
function escaped(bytes: Buffer, at: number): boolean {
  let backslashes = 0;
  while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/** Bytes of a string read one by one before its end is searched for instead. */
const SHORT_STRING = 16;

/**
 * Just past the closing quote of the string that opens at `open`, or -1 when the bytes end first. Short strings
 * (managedFields' keys, env names) byte by byte, where a search per string cost more; past SHORT_STRING bytes (image
 * names and digests, a Node's JSON's bulk) by V8's search of the Latin-1 text, each quote found checked for escape.
 */
function stringEnd(bytes: Buffer, text: string, open: number): number {
  const scanned = Math.min(bytes.length, open + 1 + SHORT_STRING);
  let at = open + 1;
  // A backslash takes the byte after it along, so an escaped quote never ends the string.
  for (; at < scanned; at++) {
    const byte = bytes[at];
    if (byte === QUOTE) return at + 1;
    if (byte === BACKSLASH) at++;
  }
  let quote = text.indexOf('"', at);
  while (quote >= 0 && escaped(bytes, quote)) quote = text.indexOf('"', quote + 1);
  return quote < 0 ? -1 : quote + 1;
}

/** Just past the array or object that opens at `start`, or -1 when the bytes end first. */
function valueEnd(bytes: Buffer, text: string, start: number): number {
  const length = bytes.length;
  let depth = 0;
  for (let at = start; at < length; at++) {
    const byte = bytes[at];
    if (byte === QUOTE) {
      const end = stringEnd(bytes, text, at);
      if (end < 0) return -1;
      at = end - 1;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) depth++;
    else if ((byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) && --depth === 0) return at + 1;
  }
  return -1;
}

/**
 * The member `"key":[…]` found at `at`, with the comma that joins it to a neighbour: [from, to), or undefined. The
 * comma before it is the one to go unless a member cut just before took it (it lies before `cursor`).
 */
function memberRange(
  bytes: Buffer,
  text: string,
  at: number,
  keyLength: number,
  cursor: number,
): [number, number] | undefined {
  const end = valueEnd(bytes, text, at + keyLength - 1);
  if (end < 0) return undefined;
  if (bytes[at - 1] === COMMA && at - 1 >= cursor) return [at - 1, end];
  if (bytes[end] === COMMA) return [at, end + 1];
  return [at, end];
}

/** The earlier of two positions found, -1 when neither was. */
function first(a: number, b: number): number {
  return a < 0 ? b : b < 0 ? a : Math.min(a, b);
}

/** Whether `pattern` lies in `bytes` at `at` (a few bytes: a loop costs less than a native call). */
function matches(bytes: Buffer, at: number, pattern: Uint8Array): boolean {
  for (let i = 0; i < pattern.length; i++) if (bytes[at + i] !== pattern[i]) return false;
  return true;
}

/** The keys of the members to cut: by what their value is, an array or an object. */
export interface UnreadMembers {
  readonly arrays: readonly string[];
  readonly objects?: readonly string[];
}

/** Cuts the members whose key is one of the keys and whose value is of its kind; made once per set of keys. */
export class MemberSkim {
  /** The patterns `"key":[` and `"key":{` by their length. */
  readonly #byLength = new Map<number, Uint8Array[]>();
  readonly #objects: boolean;

  constructor({ arrays, objects = [] }: UnreadMembers) {
    const patterns = [
      ...arrays.map((key) => `${JSON.stringify(key)}:[`),
      ...objects.map((key) => `${JSON.stringify(key)}:{`),
    ];
    for (const text of patterns) {
      const pattern = Buffer.from(text);
      this.#byLength.set(pattern.length, [...(this.#byLength.get(pattern.length) ?? []), pattern]);
    }
    this.#objects = objects.length > 0;
  }

  /**
   * Where the member whose `[` or `{` is at `open` starts, if its key is one of the keys and its opening quote is
   * not escaped (a key, not a string's inside), or -1. The key's opening quote is the last quote before its closing
   * one: the key's length picks the patterns to compare, mostly none.
   */
  #keyAt(bytes: Buffer, text: string, open: number, cursor: number): number {
    if (bytes[open - 1] !== COLON || bytes[open - 2] !== QUOTE) return -1;
    const at = text.lastIndexOf('"', open - 3);
    const patterns = at < cursor ? undefined : this.#byLength.get(open + 1 - at);
    if (patterns === undefined || escaped(bytes, at)) return -1;
    for (const pattern of patterns) if (matches(bytes, at, pattern)) return at;
    return -1;
  }

  /**
   * `bytes` (compact JSON, as the API server writes it) without those members, as the pieces that are left, in
   * order (views of `bytes`). Pretty-printed JSON, which has spaces the patterns do not, passes through whole.
   */
  cut(bytes: Buffer): Buffer[] {
    const kept: Buffer[] = [];
    let cursor = 0;
    // Searched in a Latin-1 string of the bytes (one character per byte, the same offsets): V8's own search for one
    // character, where Buffer's indexOf is a call into Node's C++ (a third of a µs each, most of a 10 KB Pod's cut).
    const text = bytes.toString('latin1');
    // Every `[` (and `{` when objects are cut): one that follows `":` opens a member's value, whatever the key.
    let array = text.indexOf('[');
    let object = this.#objects ? text.indexOf('{') : -1;
    for (let open = first(array, object); open >= 0; open = first(array, object)) {
      const end = open + 1;
      const at = this.#keyAt(bytes, text, open, cursor);
      const range = at < 0 ? undefined : memberRange(bytes, text, at, end - at, cursor);
      if (at >= 0 && range === undefined) break;
      if (range !== undefined) {
        kept.push(bytes.subarray(cursor, range[0]));
        cursor = range[1];
      }
      const from = range === undefined ? end : cursor;
      if (array >= 0 && array < from) array = text.indexOf('[', from);
      if (object >= 0 && object < from) object = text.indexOf('{', from);
    }
    kept.push(bytes.subarray(cursor));
    return kept;
  }
}
