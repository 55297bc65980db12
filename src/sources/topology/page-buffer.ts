// The bytes of one list page, in memory kept from page to page of one list.
// With pages of 5,000 Nodes (about 30 MB each) a fresh buffer for each page,
// then a second for the page without its skimmed arrays, cost more in
// allocation and first-touch page faults than the copies themselves.

/** A page larger than this is refused: more than a JavaScript string can be made from once decoded. */
export const MAX_PAGE_BYTES = 256 * 1024 * 1024;
const FIRST_CAPACITY = 1024 * 1024;

export class PageBuffer {
  #bytes = Buffer.allocUnsafe(0);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  reset(): void {
    this.#length = 0;
  }

  /** Appends `chunk`; false, appending nothing, when the page would pass MAX_PAGE_BYTES. */
  append(chunk: Uint8Array): boolean {
    const needed = this.#length + chunk.length;
    if (needed > MAX_PAGE_BYTES) return false;
    if (needed > this.#bytes.length) {
      let capacity = Math.max(this.#bytes.length, FIRST_CAPACITY);
      while (capacity < needed) capacity *= 2;
      const grown = Buffer.allocUnsafe(Math.min(capacity, MAX_PAGE_BYTES));
      this.#bytes.copy(grown, 0, 0, this.#length);
      this.#bytes = grown;
    }
    this.#bytes.set(chunk, this.#length);
    this.#length = needed;
    return true;
  }

  /** The page so far: a view, valid until the next reset or append. */
  view(): Buffer {
    return this.#bytes.subarray(0, this.#length);
  }

  text(): string {
    return this.#bytes.toString('utf8', 0, this.#length);
  }
}
