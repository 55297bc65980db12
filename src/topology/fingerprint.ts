// What names a snapshot: a digest of the objects it was built from, kept up to date one object at a time (the
// XOR of each object's own digest, so the order objects came in does not matter). The same objects give the
// same id in every process, so `mutate`, `mutate --patch` and `explain` on the same files write the same bytes.

import { createHash } from 'node:crypto';

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
    const digest = createHash('sha256').update(key).update('\0').update(JSON.stringify(object)).digest();
    const value = digest.readBigUInt64BE(0);
    this.#digests.set(key, value);
    this.#value ^= value;
  }

  /** 12 hex characters. */
  get id(): string {
    return (this.#value >> 16n).toString(16).padStart(12, '0');
  }
}
