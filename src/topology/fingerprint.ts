// What names a snapshot: a digest of the objects it was built from, kept up to date one object at a time (the
// XOR of each object's own digest, so the order objects came in does not matter). The same objects give the
// same id in every process, so `mutate`, `mutate --patch` and `explain` on the same files write the same bytes.

import { hash } from 'node:crypto';

/**
 * What an object's digest is taken of. `content`: the object as kept, so that a file edited by hand is another
 * model. `version`: for objects from the API server, its name and resourceVersion, which the API server changes with
 * every write: hashing a 65,000-node list's JSON was a fifth of its first snapshot. An object without a
 * resourceVersion is digested by its content either way.
 */
export type DigestOf = 'content' | 'version';

/** Of an object's SHA-256, the first 12 hex digits as their high 16 and low 32 bits: the id is 48 bits. */
const HIGH_DIGITS = 4;
const ID_DIGITS = 12;

export class ContentFingerprint {
  /** Each object's 48 bits, as one number (below 2^53, exact). */
  readonly #digests = new Map<string, number>();
  readonly #of: DigestOf;
  // The XOR of every digest, in two integers: bitwise operators work on 32 bits.
  #high = 0;
  #low = 0;

  constructor(of: DigestOf = 'content') {
    this.#of = of;
  }

  /** The object now under `key` (a source and a name), or none. */
  set(key: string, object: { readonly metadata?: { readonly resourceVersion?: unknown } } | undefined): void {
    const before = this.#digests.get(key);
    if (before !== undefined) this.#xor(before);
    if (object === undefined) {
      this.#digests.delete(key);
      return;
    }
    const version = this.#of === 'version' ? object.metadata?.resourceVersion : undefined;
    // A version never starts with '{', so no object's version digest is another's content digest.
    const identity = typeof version === 'string' ? `@${version}` : JSON.stringify(object);
    // Hex, not a Buffer: allocating the Buffer cost as much as hashing a Node's name and version.
    const hex = hash('sha256', `${key}\0${identity}`, 'hex');
    const digest = parseInt(hex.slice(0, HIGH_DIGITS), 16) * 2 ** 32 + parseInt(hex.slice(HIGH_DIGITS, ID_DIGITS), 16);
    this.#digests.set(key, digest);
    this.#xor(digest);
  }

  /** 12 hex characters. */
  get id(): string {
    return this.#high.toString(16).padStart(HIGH_DIGITS, '0') + (this.#low >>> 0).toString(16).padStart(8, '0');
  }

  #xor(digest: number): void {
    this.#high ^= Math.floor(digest / 2 ** 32);
    this.#low ^= digest % 2 ** 32;
  }
}
