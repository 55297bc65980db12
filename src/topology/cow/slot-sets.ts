// Named sets of node slots that change one slot at a time between snapshots.
// Changed sets are drafted as mutable words and become NodeSets at freeze, so
// a batch of changes to one set (a full list of 5,000 nodes) costs one copy,
// not one per node; sets that did not change are shared with the last snapshot.

import { NodeSet } from '../nodeset.ts';
import { CowMap } from './map.ts';

/** A set being changed: its words from word `offset` on, grown by doubling toward the slots added. */
interface Draft {
  offset: number;
  words: Uint32Array;
}

export class SlotSets {
  readonly #sets = new CowMap<NodeSet>();
  readonly #drafts = new Map<string, Draft>();

  get changed(): boolean {
    return this.#drafts.size > 0;
  }

  add(key: string, slot: number): void {
    const draft = this.#draft(key, slot);
    draft.words[(slot >>> 5) - draft.offset]! |= 1 << (slot & 31);
  }

  remove(key: string, slot: number): void {
    const current = this.#drafts.get(key);
    const word = slot >>> 5;
    const present = current
      ? ((current.words[word - current.offset] ?? 0) & (1 << (slot & 31))) !== 0 && word >= current.offset
      : this.#sets.get(key)?.has(slot);
    if (!present) return;
    const draft = this.#draft(key, slot);
    draft.words[word - draft.offset]! &= ~(1 << (slot & 31));
  }

  /** The sets as of now; empty sets are left out. */
  freeze(): ReadonlyMap<string, NodeSet> {
    for (const [key, { offset, words }] of this.#drafts) {
      const set = NodeSet.fromWords(words, offset);
      if (set.isEmpty()) this.#sets.delete(key);
      else this.#sets.set(key, set);
    }
    this.#drafts.clear();
    return this.#sets.freeze();
  }

  /**
   * The key's draft, holding `slot`. A draft starts at the words its set spans and grows by doubling: a full list
   * adds slots in order, and growing one word at a time copied the words so far each 32 nodes (a set of one node
   * per hostname, each as long as the slots before it: 264 MB of drafts at 65,000 nodes).
   */
  #draft(key: string, slot: number): Draft {
    const word = slot >>> 5;
    let draft = this.#drafts.get(key);
    if (draft === undefined) {
      // No set yet at all (a first list): the hostname label alone has a key per node, each one looked up for naught.
      const set = this.#sets.size > 0 ? this.#sets.get(key) : undefined;
      const offset = set === undefined ? word : Math.min(set.firstWord, word);
      draft = { offset, words: (set ?? NodeSet.EMPTY).wordsBetween(offset, word + 1) };
      this.#drafts.set(key, draft);
      return draft;
    }
    const { offset, words } = draft;
    if (word >= offset + words.length) {
      const grown = new Uint32Array(Math.max(2 * words.length, word + 1 - offset));
      grown.set(words);
      draft.words = grown;
    } else if (word < offset) {
      const from = Math.max(0, Math.min(word, offset - words.length));
      const grown = new Uint32Array(offset + words.length - from);
      grown.set(words, offset - from);
      draft.offset = from;
      draft.words = grown;
    }
    return draft;
  }
}
