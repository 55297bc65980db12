// An immutable set of node slots, stored as a bitset. Every index in a
// topology snapshot speaks in NodeSets over the same slot numbering, so that
// combining a placement's requirements costs a few word operations per 32
// nodes instead of a scan of node objects.

const WORD_BITS = 32;

export class NodeSet {
  static readonly EMPTY = new NodeSet(new Uint32Array(0));

  readonly #words: Uint32Array;
  #count = -1;

  private constructor(words: Uint32Array) {
    this.#words = words;
  }

  static of(slots: Iterable<number>): NodeSet {
    const list = [...slots];
    if (list.length === 0) return NodeSet.EMPTY;
    const words = new Uint32Array(Math.floor(Math.max(...list) / WORD_BITS) + 1);
    for (const slot of list) words[slot >>> 5]! |= 1 << (slot & 31);
    return new NodeSet(words);
  }

  /** Wraps words the caller will never change again. */
  static fromWords(words: Uint32Array): NodeSet {
    return new NodeSet(words);
  }

  /** A copy of the words, large enough to hold `slot`, for building a new set. */
  wordsFor(slot: number): Uint32Array {
    const words = new Uint32Array(Math.max(this.#words.length, (slot >>> 5) + 1));
    words.set(this.#words);
    return words;
  }

  with(slot: number): NodeSet {
    if (this.has(slot)) return this;
    const words = this.wordsFor(slot);
    words[slot >>> 5]! |= 1 << (slot & 31);
    return new NodeSet(words);
  }

  without(slot: number): NodeSet {
    if (!this.has(slot)) return this;
    const words = this.#words.slice();
    words[slot >>> 5]! &= ~(1 << (slot & 31));
    return new NodeSet(words);
  }

  has(slot: number): boolean {
    const word = this.#words[slot >>> 5];
    return word !== undefined && (word & (1 << (slot & 31))) !== 0;
  }

  and(other: NodeSet): NodeSet {
    const a = this.#words;
    const b = other.#words;
    const words = new Uint32Array(Math.min(a.length, b.length));
    for (let i = 0; i < words.length; i++) words[i] = a[i]! & b[i]!;
    return new NodeSet(words);
  }

  or(other: NodeSet): NodeSet {
    const [long, short] =
      this.#words.length >= other.#words.length ? [this.#words, other.#words] : [other.#words, this.#words];
    const words = long.slice();
    for (let i = 0; i < short.length; i++) words[i]! |= short[i]!;
    return new NodeSet(words);
  }

  andNot(other: NodeSet): NodeSet {
    const words = this.#words.slice();
    const b = other.#words;
    const n = Math.min(words.length, b.length);
    for (let i = 0; i < n; i++) words[i]! &= ~b[i]!;
    return new NodeSet(words);
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
        yield i * WORD_BITS + (31 - Math.clz32(low));
        word ^= low;
      }
    }
  }

  equals(other: NodeSet): boolean {
    const a = this.#words;
    const b = other.#words;
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return false;
    return true;
  }
}

function popcount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
