// Which numbers were met, as a table of fixed size: a number's low bits pick
// its slot, which holds the last number met there. Meeting a number displaces
// the one in its slot, so "not met" can be wrong (another number took the
// slot since) and "met" cannot. For a filter whose mistakes cost only time:
// no entry to make, move or evict, where an LRU map's insertion with eviction
// cost the decision memo about a tenth of a new Pod's decision.

export class SeenTable {
  readonly #slots: Int32Array;
  readonly #mask: number;

  /** 2^bits slots of 4 bytes. */
  constructor(bits: number) {
    this.#slots = new Int32Array(1 << bits);
    this.#mask = (1 << bits) - 1;
  }

  /** Whether `value` (a 30-bit number, as textHash gives) was the last one met in its slot; it is from now on. */
  saw(value: number): boolean {
    const slot = value & this.#mask;
    // 0 marks a slot never written.
    const stamp = value + 1;
    if (this.#slots[slot] === stamp) return true;
    this.#slots[slot] = stamp;
    return false;
  }
}
