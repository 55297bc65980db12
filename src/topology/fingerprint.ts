// What names a snapshot: a digest of the objects it was built from, kept up to date one object at a time (the
// XOR of each object's own digest, so the order objects came in does not matter). The same objects give the
// same id in every process, so `mutate`, `mutate --patch` and `explain` on the same files write the same bytes.

import { hash } from 'node:crypto';

export class ContentFingerprint {
  readonly #digests = new Map<string, bigint>();
  #value = 0n;

  /** The object now under `key` (a source and a name), or none. */
  set(key: string, object: unknown): void {
    const before = this.#digests.get(key);
    if (before !== undefined) this.#value ^= before;
    if (object === undefined) {
      this.#digests.delete(key);
      return;
    }
    // One call, the same bytes as hashing the three parts in turn: a Hash object per Node was a third of listing one.
    const digest = hash('sha256', `${key}\0${JSON.stringify(object)}`, 'buffer');
    const value = digest.readBigUInt64BE(0);
    this.#digests.set(key, value);
    this.#value ^= value;
  }

  /** 12 hex characters. */
  get id(): string {
    return (this.#value >> 16n).toString(16).padStart(12, '0');
  }
}
