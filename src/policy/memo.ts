// What a decision would otherwise recompute for every Pod, kept for the life
// of one compiled policy set (so it dies with its snapshot): node sets by
// placement, whole decisions by the Pod's facts, and what a decision writes by
// what it is written from (writes.ts). Replicas of a workload
// differ only in name and uid, which are no facts, and a new workload's Pods
// only in labels no policy reads, which decisions do not see (projection.ts),
// so a steady stream of them is decided once; memoised sets keep their
// identity, so new shapes do little bitset work. Every map is
// least-recently-used: a stream of one-off Pods (each with a label value of
// its own that a policy reads) passes through
// without evicting the hot workloads' entries. The label and annotation sets
// seen are a table instead (seenTable.ts): a one-off Pod displaces a
// workload's entry only by falling in its slot, one in 65,536, and costs it
// one decision.

import { LRUCache } from 'lru-cache';
import type { PlacementFacts } from '../kube/podFacts.ts';
import type { TopologySnapshot } from '../topology/model.ts';
import type { NodeSet } from '../topology/nodeset.ts';
import { keep } from '../memo/kept.ts';
import { placementNodes, schedulableFor } from './satisfiability.ts';
import { SeenTable } from '../memo/seenTable.ts';
import { recordHash, textHash } from '../memo/textHash.ts';
import type { Decision, PodRequest } from './types.ts';
import {
  sameWritesKey,
  writes,
  writesKey,
  writesKeyHash,
  type Additions,
  type Writes,
  type WritesKey,
} from './writes.ts';

/** Enough for every workload shape of a large cluster; past it the least recently used entry goes. */
export const MEMO_LIMIT = 1024;
/** The table of label and annotation sets seen: 2^16 slots, 256 KB. */
const PAIR_SLOT_BITS = 16;
/** The table of writes keys seen: 2^14 slots, 64 KB. */
const WRITES_SLOT_BITS = 14;
/** A decision key seen once, whose decision is not kept yet. */
const SEEN = Symbol('seen');

/** A decision with the key it was made for: the memo's map is keyed by the key's hash, which keys may share. */
interface KeptDecision {
  readonly facts: string;
  readonly occupancy: number | undefined;
  readonly decision: Decision;
}

/** What a memo reads and writes of its map. */
export interface MemoMap<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/** lru-cache's get and set make an options object on every call not given one: this one, empty, is shared. */
const NO_OPTIONS = Object.freeze({});

/** An LRU map of at most MEMO_LIMIT entries. */
export function lruMap<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(): MemoMap<K, V> {
  const map = new LRUCache<K, V>({ max: MEMO_LIMIT });
  return { get: (key) => map.get(key, NO_OPTIONS), set: (key, value) => map.set(key, value, NO_OPTIONS) };
}

/**
 * An LRU map made on its first write: a compile makes one per spread rule, most never written for a snapshot, and
 * an LRUCache allocates its arrays for MEMO_LIMIT entries at once (hundreds of µs on a busy machine, then GC).
 */
export function lazyLruMap<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(): MemoMap<K, V> {
  let map: MemoMap<K, V> | undefined;
  return {
    get: (key) => map?.get(key),
    set: (key, value) => (map ??= lruMap<K, V>()).set(key, value),
  };
}

export interface Placement {
  /** Nodes the Pod may land on at all (schedulableFor). */
  readonly schedulable: NodeSet;
  /** Of those, the ones its own nodeSelector and required node affinity allow (placementNodes). */
  readonly own: NodeSet;
}

export class DecisionMemo {
  readonly #snapshot: TopologySnapshot;
  readonly #placements = lazyLruMap<string, Placement>();
  readonly #intersections = new WeakMap<NodeSet, MemoMap<NodeSet, NodeSet>>();
  readonly #decisions = lazyLruMap<number, KeptDecision | typeof SEEN>();
  /** Hashes of the labels and annotations of Pods decided: a Pod whose are not there is new, or lost its slot since. */
  readonly #pairsSeen: SeenTable;
  readonly #snapshotId: string;
  readonly #writes = lazyLruMap<number, { readonly key: WritesKey; readonly writes: Writes }>();
  readonly #writesSeen: SeenTable;

  #freshFor: number | undefined;
  #freshUntil = Number.NEGATIVE_INFINITY;

  readonly #freshUntilOf: (maxSourceAgeMs: number) => number;

  /**
   * `freshUntil`: the snapshot's (rules/table.ts), passed in since the rules' memos are made with this one.
   * `previous`: the memo of the snapshot before, whose tables of what was seen carry over (they only say whether to
   * keep, never what): a Node event then allocates and zeroes no 320 KB of tables before the next decision.
   */
  constructor(
    snapshot: TopologySnapshot,
    snapshotId: string,
    freshUntil: (maxSourceAgeMs: number) => number,
    previous?: DecisionMemo,
  ) {
    this.#snapshot = snapshot;
    this.#snapshotId = snapshotId;
    this.#freshUntilOf = freshUntil;
    this.#pairsSeen = previous ? previous.#pairsSeen : new SeenTable(PAIR_SLOT_BITS);
    this.#writesSeen = previous ? previous.#writesSeen : new SeenTable(WRITES_SLOT_BITS);
  }

  /** freshUntil of this snapshot (which never changes), worked out again only for another maximum source age. */
  freshUntil(maxSourceAgeMs: number): number {
    if (maxSourceAgeMs !== this.#freshFor) {
      this.#freshUntil = this.#freshUntilOf(maxSourceAgeMs);
      this.#freshFor = maxSourceAgeMs;
    }
    return this.#freshUntil;
  }

  /** Keyed by the placement facts themselves: schedulableFor and placementNodes read nothing else. */
  placement(facts: PlacementFacts): Placement {
    const key = JSON.stringify(facts);
    let placement = this.#placements.get(key);
    if (placement === undefined) {
      const schedulable = schedulableFor(facts, this.#snapshot);
      placement = { schedulable, own: placementNodes(facts, this.#snapshot, schedulable) };
      this.#placements.set(key, placement);
    }
    return placement;
  }

  /**
   * The decision kept for the request's key once the key was met twice; computed otherwise. The key is the facts
   * themselves (plain JSON, the only view of the Pod a decision has), so it holds whatever a rule reads.
   * A decision is kept only from a key's second sight: most Pods are the only one of their kind, and keeping
   * each one's decision (kilobytes that outlive the young generation) would make the old generation's
   * collector pay for every Pod. For the same reason the map is keyed by the key's hash (textHash.ts), and a
   * sight records only that. A hash two keys share costs only memo hits: one key's decision may be kept
   * a sight early, or the other's dropped; a kept decision is returned only for its own facts and occupancy.
   * Decisions are never changed once made. `occupancy`: the version of the bound Pods the decision reads, when
   * it reads them (pack), so that a bind makes its key new.
   *
   * Such one-off Pods usually differ from every Pod before them in their labels (those a policy reads:
   * projection.ts) or their annotations, a fifth of the facts: equal facts have equal labels and annotations, so
   * a pair of them never seen (hashed member by member, recordHash) proves a first sight without the key. The
   * key's text and hash cost more than the rest of a one-off Pod's memo lookup; a workload's replicas pay for both,
   * and are kept from their third sight (the first met only the pair). A pair whose slot another took since is
   * taken as never seen: one decision made again.
   */
  decision(request: PodRequest, compute: () => Decision, occupancy?: number): Decision {
    const { labels, annotations } = request.facts;
    if (!this.#pairsSeen.saw(recordHash(annotations, recordHash(labels)))) return compute();
    const facts = JSON.stringify(request.facts);
    const hash = textHash(facts, occupancy);
    const entry = this.#decisions.get(hash);
    if (entry !== undefined && entry !== SEEN && entry.facts === facts && entry.occupancy === occupancy)
      return entry.decision;
    const decision = compute();
    if (entry === SEEN) {
      keep(decision, decision.patch);
      this.#decisions.set(hash, { facts, occupancy, decision });
    } else this.#decisions.set(hash, SEEN);
    return decision;
  }

  /**
   * writes() for the additions, kept from their key's second sight, as decisions are and for the same reasons:
   * keyed by the key's hash, each kept entry compared by its key. A kept patch is encoded once (encode.ts).
   */
  writes(additions: Additions): Writes {
    const key = writesKey(additions);
    const hash = writesKeyHash(key);
    const entry = this.#writes.get(hash);
    if (entry !== undefined && sameWritesKey(entry.key, key)) return entry.writes;
    const made = writes(this.#snapshotId, additions);
    if (this.#writesSeen.saw(hash)) {
      keep(made.patch);
      this.#writes.set(hash, { key, writes: made });
    }
    return made;
  }

  and(a: NodeSet, b: NodeSet): NodeSet {
    let withA = this.#intersections.get(a);
    if (withA === undefined) this.#intersections.set(a, (withA = lruMap()));
    let both = withA.get(b);
    if (both === undefined) withA.set(b, (both = a.and(b)));
    return both;
  }
}
