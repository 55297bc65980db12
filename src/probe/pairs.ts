// The writer's node-pair round trips: for each unordered pair of nodes, the
// latest figure each of the two agents reported for the other (a round trip
// is the same both ways), and their median. Bounded in memory: at most
// `capacity` pairs (the least recently reported go first), none older than
// `maxAgeMs`, in typed arrays and one Map, so that 5,000 nodes (12.5
// million pairs) cost the writer a fixed few MB. The rotation reaches every
// peer of every agent over time, so the pairs held cover the fleet as far as
// the capacity allows.
//
// `pairs()` is what topology derivation reads: a typed list of {a, b, rttMs}.

/** One measured node pair: a < b, rttMs the median of the two agents' recent figures. */
export interface NodePairRtt {
  readonly a: string;
  readonly b: string;
  readonly rttMs: number;
}

export interface PairLimits {
  readonly capacity: number;
  readonly maxAgeMs: number;
}

/** Every pair of ~630 nodes; at 1,000 nodes (499,500 pairs) the 200,000 reported last. */
export const DEFAULT_PAIR_LIMITS: PairLimits = { capacity: 200_000, maxAgeMs: 60 * 60_000 };

/** Node ids fit 26 bits, so a pair's key (a × 2^26 + b) is an exact integer. */
const ID_SPAN = 2 ** 26;
const FIRST_SLOTS = 1024;

export class PairStore {
  readonly #limits: PairLimits;
  readonly #ids = new Map<string, number>();
  #names: string[] = [];
  /** Pair key → slot, in the order of the last report (a Map keeps insertion order). */
  #slots = new Map<number, number>();
  /** Per slot: the figure reported by the pair's first node (a), by its second (b), NaN for none; and when. */
  #byA = new Float32Array(0);
  #byB = new Float32Array(0);
  #at = new Float64Array(0);
  #free: number[] = [];

  constructor(limits: PairLimits = DEFAULT_PAIR_LIMITS) {
    this.#limits = limits;
  }

  get size(): number {
    return this.#slots.size;
  }

  /** Agent `from` measured `rttMs` to `to` (its recent median) at `at`. */
  report(from: string, to: string, rttMs: number, at: number): void {
    if (from === to || !(rttMs > 0)) return;
    const fromFirst = from < to;
    const key = this.#id(fromFirst ? from : to) * ID_SPAN + this.#id(fromFirst ? to : from);
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = this.#take();
      this.#byA[slot] = NaN;
      this.#byB[slot] = NaN;
    } else this.#slots.delete(key);
    this.#slots.set(key, slot);
    (fromFirst ? this.#byA : this.#byB)[slot] = rttMs;
    this.#at[slot] = at;
  }

  /** Drops the pairs reported before `now - maxAgeMs`, and those with a node not in `nodes` when given. */
  prune(now: number, nodes?: ReadonlySet<string>): void {
    const oldest = now - this.#limits.maxAgeMs;
    for (const [key, slot] of this.#slots) {
      const gone = nodes && !(nodes.has(this.#nameOf(key, 0)) && nodes.has(this.#nameOf(key, 1)));
      if (this.#at[slot]! >= oldest && !gone) continue;
      this.#slots.delete(key);
      this.#free.push(slot);
    }
    if (this.#names.length > 2 * this.#slots.size + 1024) this.#compact();
  }

  /** Every pair held, sorted by a then b. */
  pairs(now: number): NodePairRtt[] {
    this.prune(now);
    const out: NodePairRtt[] = [];
    for (const [key, slot] of this.#slots) {
      const byA = this.#byA[slot]!;
      const byB = this.#byB[slot]!;
      const rttMs = Number.isNaN(byA) ? byB : Number.isNaN(byB) ? byA : (byA + byB) / 2;
      out.push({ a: this.#nameOf(key, 0), b: this.#nameOf(key, 1), rttMs: Math.round(rttMs * 1000) / 1000 });
    }
    return out.sort((x, y) => compare(x.a, y.a) || compare(x.b, y.b));
  }

  #id(name: string): number {
    let id = this.#ids.get(name);
    if (id === undefined) {
      if (this.#names.length >= ID_SPAN) this.#compact();
      id = this.#names.length;
      this.#names.push(name);
      this.#ids.set(name, id);
    }
    return id;
  }

  #nameOf(key: number, which: 0 | 1): string {
    return this.#names[which === 0 ? Math.floor(key / ID_SPAN) : key % ID_SPAN]!;
  }

  /** A free slot: a released one, a new one (growing the arrays), or the least recently reported pair's. */
  #take(): number {
    const released = this.#free.pop();
    if (released !== undefined) return released;
    const used = this.#slots.size;
    if (used < this.#limits.capacity) {
      if (used === this.#at.length) this.#grow(Math.min(this.#limits.capacity, Math.max(FIRST_SLOTS, used * 2)));
      return used;
    }
    const [key, slot] = this.#slots.entries().next().value!;
    this.#slots.delete(key);
    return slot;
  }

  #grow(slots: number): void {
    const grown = <T extends Float32Array | Float64Array>(from: T, to: T): T => (to.set(from), to);
    this.#byA = grown(this.#byA, new Float32Array(slots));
    this.#byB = grown(this.#byB, new Float32Array(slots));
    this.#at = grown(this.#at, new Float64Array(slots));
  }

  /** Renumbers the nodes still in some pair, so that nodes come and gone never fill the id space. */
  #compact(): void {
    const names = this.#names;
    this.#ids.clear();
    this.#names = [];
    const slots = new Map<number, number>();
    for (const [key, slot] of this.#slots) {
      const renamed = this.#id(names[Math.floor(key / ID_SPAN)]!) * ID_SPAN + this.#id(names[key % ID_SPAN]!);
      slots.set(renamed, slot);
    }
    this.#slots = slots;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
