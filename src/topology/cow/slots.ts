// An array by slot that the builder changes and snapshots share, in chunks: a snapshot keeps the list of chunks
// it was frozen with, and the first change to a chunk after a freeze copies that chunk alone, so one node's
// update copies 1,024 entries and the list of chunks (64 at 65,000 nodes), not every node's slot (2 ms a Node
// event at 65,000 nodes when the whole array was copied).

const CHUNK_BITS = 10;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;

/** What a snapshot reads. */
export interface Slots<T> {
  get(slot: number): T | undefined;
}

export class CowSlots<T> {
  #chunks: (T | undefined)[][] = [];
  #owned = new Set<number>();
  #frozen: Slots<T> | undefined;

  set(slot: number, value: T | undefined): void {
    const index = slot >>> CHUNK_BITS;
    while (this.#chunks.length <= index) {
      this.#owned.add(this.#chunks.length);
      this.#chunks.push(new Array<T | undefined>(CHUNK).fill(undefined));
    }
    if (!this.#owned.has(index)) {
      this.#chunks[index] = this.#chunks[index]!.slice();
      this.#owned.add(index);
    }
    this.#chunks[index]![slot & MASK] = value;
  }

  get(slot: number): T | undefined {
    return this.#chunks[slot >>> CHUNK_BITS]?.[slot & MASK];
  }

  /** An immutable view of the slots now; unchanged slots freeze to the same view. */
  freeze(): Slots<T> {
    if (this.#frozen === undefined || this.#owned.size > 0) {
      this.#frozen = new FrozenSlots(this.#chunks.slice());
      this.#owned.clear();
    }
    return this.#frozen;
  }
}

class FrozenSlots<T> implements Slots<T> {
  readonly #chunks: readonly (readonly (T | undefined)[])[];

  constructor(chunks: readonly (readonly (T | undefined)[])[]) {
    this.#chunks = chunks;
  }

  get(slot: number): T | undefined {
    return this.#chunks[slot >>> CHUNK_BITS]?.[slot & MASK];
  }
}
