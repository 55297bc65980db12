// Named sets of node slots that change one slot at a time between snapshots.
// Changed sets are drafted as mutable words and become NodeSets at freeze, so
// a batch of changes to one set (a full list of 5,000 nodes) costs one copy,
// not one per node; sets that did not change are shared with the last snapshot.

import { NodeSet } from '../nodeset.ts';
import { CowMap } from './map.ts';

export class SlotSets {
  readonly #sets = new CowMap<NodeSet>();
  readonly #drafts = new Map<string, Uint32Array>();

  get changed(): boolean {
    return this.#drafts.size > 0;
  }

  add(key: string, slot: number): void {
    const words = this.#draft(key, slot);
    words[slot >>> 5]! |= 1 << (slot & 31);
  }

  remove(key: string, slot: number): void {
    const current = this.#drafts.get(key);
    const present = current ? (current[slot >>> 5] ?? 0) & (1 << (slot & 31)) : this.#sets.get(key)?.has(slot);
    if (!present) return;
    this.#draft(key, slot)[slot >>> 5]! &= ~(1 << (slot & 31));
  }

  /** The sets as of now; empty sets are left out. */
  freeze(): ReadonlyMap<string, NodeSet> {
    for (const [key, words] of this.#drafts) {
      const set = NodeSet.fromWords(words);
      if (set.isEmpty()) this.#sets.delete(key);
      else this.#sets.set(key, set);
    }
    this.#drafts.clear();
    return this.#sets.freeze();
  }

  #draft(key: string, slot: number): Uint32Array {
    let words = this.#drafts.get(key);
    if (words === undefined) {
      words = (this.#sets.get(key) ?? NodeSet.EMPTY).wordsFor(slot);
      this.#drafts.set(key, words);
    } else if (words.length <= slot >>> 5) {
      words = NodeSet.fromWords(words).wordsFor(slot);
      this.#drafts.set(key, words);
    }
    return words;
  }
}
