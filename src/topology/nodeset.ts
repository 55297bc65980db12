// An immutable set of node slots, stored as a bitset. Every index in a
// topology snapshot speaks in NodeSets over the same slot numbering, so that
// combining a placement's requirements costs a few word operations per 32
// nodes instead of a scan of node objects.

const WORD_BITS = 32;

/**
 * The words from the first that holds a node to the last: a set of one node (a hostname's) is one word wherever
 * its slot is, not a word for every 32 slots before it (at 10,000 nodes, 6 MB over the hostname index alone).
 */
export class NodeSet {
  static readonly EMPTY = new NodeSet(new Uint32Array(0), 0);

  readonly #words: Uint32Array;
  /** The word index of #words[0]. */
  readonly #offset: number;
  #count = -1;

  private constructor(words: Uint32Array, offset: number) {
    this.#words = words;
    this.#offset = offset;
  }

  static of(slots: Iterable<number>): NodeSet {
    const list = [...slots];
    if (list.length === 0) return NodeSet.EMPTY;
    let low = list[0]!;
    let high = low;
    for (const slot of list) {
      if (slot < low) low = slot;
      if (slot > high) high = slot;
    }
    const offset = low >>> 5;
    const words = new Uint32Array((high >>> 5) - offset + 1);
    for (const slot of list) words[(slot >>> 5) - offset]! |= 1 << (slot & 31);
    return new NodeSet(words, offset);
  }

  /**
   * Wraps words (from word `offset`, slot 0 by default) the caller will never change again; empty words at either
   * end are left out.
   */
  static fromWords(words: Uint32Array, offset = 0): NodeSet {
    let first = 0;
    while (first < words.length && words[first] === 0) first++;
    if (first === words.length) return NodeSet.EMPTY;
    let last = words.length - 1;
    while (words[last] === 0) last--;
    const kept = first === 0 && last === words.length - 1 ? words : words.slice(first, last + 1);
    return new NodeSet(kept, offset + first);
  }

  /** The word index of the set's first word; words before it hold no slot. */
  get firstWord(): number {
    return this.#offset;
  }

  /** A copy of the words from word `from` (at most firstWord) to at least word `to` (exclusive), to build a set. */
  wordsBetween(from: number, to: number): Uint32Array {
    const words = new Uint32Array(Math.max(this.#end(), to) - from);
    if (this.#words.length > 0) words.set(this.#words, this.#offset - from);
    return words;
  }

  /** A copy of the words from slot 0, large enough to hold `slot`, for building a new set. */
  wordsFor(slot: number): Uint32Array {
    const words = new Uint32Array(Math.max(this.#end(), (slot >>> 5) + 1));
    words.set(this.#words, this.#offset);
    return words;
  }

  with(slot: number): NodeSet {
    if (this.has(slot)) return this;
    const words = this.wordsFor(slot);
    words[slot >>> 5]! |= 1 << (slot & 31);
    return NodeSet.fromWords(words);
  }

  without(slot: number): NodeSet {
    if (!this.has(slot)) return this;
    const words = this.wordsFor(slot);
    words[slot >>> 5]! &= ~(1 << (slot & 31));
    return NodeSet.fromWords(words);
  }

  has(slot: number): boolean {
    const word = this.#words[(slot >>> 5) - this.#offset];
    return word !== undefined && (word & (1 << (slot & 31))) !== 0;
  }

  and(other: NodeSet): NodeSet {
    const low = Math.max(this.#offset, other.#offset);
    const high = Math.min(this.#end(), other.#end());
    if (high <= low) return NodeSet.EMPTY;
    const a = this.#words;
    const b = other.#words;
    const fromA = low - this.#offset;
    const fromB = low - other.#offset;
    const words = new Uint32Array(high - low);
    for (let i = 0; i < words.length; i++) words[i] = a[fromA + i]! & b[fromB + i]!;
    return new NodeSet(words, low);
  }

  or(other: NodeSet): NodeSet {
    if (other.#words.length === 0) return this;
    if (this.#words.length === 0) return other;
    const low = Math.min(this.#offset, other.#offset);
    const words = new Uint32Array(Math.max(this.#end(), other.#end()) - low);
    words.set(this.#words, this.#offset - low);
    const b = other.#words;
    const fromB = other.#offset - low;
    for (let i = 0; i < b.length; i++) words[fromB + i]! |= b[i]!;
    return new NodeSet(words, low);
  }

  andNot(other: NodeSet): NodeSet {
    const words = this.#words.slice();
    const b = other.#words;
    const low = Math.max(this.#offset, other.#offset);
    const high = Math.min(this.#end(), other.#end());
    for (let word = low; word < high; word++) words[word - this.#offset]! &= ~b[word - other.#offset]!;
    return new NodeSet(words, this.#offset);
  }

  isEmpty(): boolean {
    if (this.#count >= 0) return this.#count === 0;
    for (const word of this.#words) if (word !== 0) return false;
    return true;
  }

  get size(): number {
    if (this.#count < 0) {
      let count = 0;
      for (const word of this.#words) count += popcount(word);
      this.#count = count;
    }
    return this.#count;
  }

  *slots(): IterableIterator<number> {
    const words = this.#words;
    for (let i = 0; i < words.length; i++) {
      let word = words[i]!;
      while (word !== 0) {
        const low = word & -word;
        yield (this.#offset + i) * WORD_BITS + (31 - Math.clz32(low));
        word ^= low;
      }
    }
  }

  equals(other: NodeSet): boolean {
    const low = Math.min(this.#offset, other.#offset);
    const high = Math.max(this.#end(), other.#end());
    for (let word = low; word < high; word++) if (this.#word(word) !== other.#word(word)) return false;
    return true;
  }

  /** One past the last word index. */
  #end(): number {
    return this.#offset + this.#words.length;
  }

  #word(index: number): number {
    return this.#words[index - this.#offset] ?? 0;
  }
}

function popcount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
