// The requests of bound Pods per node and the nodes of each workload, kept up
// to date one Pod at a time (a bind, a finish, a delete costs one node's sum
// and at most one bucket of a workload's node counts); frozen occupancies
// share what did not change, and say which nodes changed between two of them,
// so that what a pack rule counted per domain is brought up to date by the few
// nodes a bind touched.
// Pods not bound yet but held to one value of a node label are summed per
// label and value apart: few at a time, copied whole when they change. Those
// topogate admitted so held and the watch has not brought back yet are
// counted there too, as assumed (assumed.ts).

import { AssumedPods } from './assumed.ts';
import { copyOf, CowMap } from './cow/map.ts';
import type { Occupancy, PendingUnder, ResourceList } from './model.ts';
import type { PendingUsage, PodUsage } from './read/pod-usage.ts';
import { sameRecord } from './sameRecord.ts';

/** Versions whose changed nodes are remembered; an occupancy older than that is counted afresh. */
const REMEMBERED_VERSIONS = 256;
/**
 * Past this many nodes a workload's node counts move to a CowMap of their own, and stay there until the
 * workload has no Pod left: a bind then copies one bucket of them rather than all, and a Deployment scaling
 * out to N nodes costs O(N), not O(N²), in all.
 */
const SMALL_WORKLOAD = 64;
/**
 * Workloads remembered for sharing (see #shared); past that the memory is started afresh, which costs only
 * sharing, never a count.
 */
const ALIKE_WORKLOADS = 65_536;

interface Change {
  readonly version: number;
  readonly nodes: ReadonlySet<string>;
}

export class PodUsageTable {
  readonly #pods = new Map<string, PodUsage>();
  /** Each bind copies one bucket: at 10,000 nodes, 10 entries rather than 156 (a freeze copies 1,024 slots). */
  readonly #requested = new CowMap<ResourceList>(1024);
  readonly #workloads = new CowMap<ReadonlyMap<string, number>>();
  /** The node counts of workloads past SMALL_WORKLOAD nodes, frozen into #workloads by freeze(). */
  readonly #large = new Map<string, CowMap<number>>();
  readonly #largeChanged = new Set<string>();
  /** Nodes whose requested sum changed since the last freeze. */
  #changed = new Set<string>();
  /** Held label → its value → what the Pods held there and not bound yet request. */
  readonly #pending = new Map<string, Map<string, PendingUnder>>();
  #pendingChanged = false;
  #pendingFrozen: ReadonlyMap<string, ReadonlyMap<string, PendingUnder>> = new Map();
  readonly #assumed = new AssumedPods();
  /** Oldest first; only appended to and trimmed at the front, so what a frozen occupancy reads of it stays true. */
  readonly #log: Change[] = [];
  #version = 0;
  #last: Occupancy | undefined;
  /** The occupancies this table froze: only between two of them is the log of changes meaningful. */
  readonly #made = new WeakSet<Occupancy>();
  /**
   * Per workload, one of its Pods' usage: the Pods of a workload request alike, and share that one's requests
   * and workload key rather than each keeping its own (500,000 Pods: two objects and a string fewer each).
   */
  readonly #alike = new Map<string, PodUsage>();

  /** Sets (or with undefined, clears) one Pod's usage; false when nothing changed. */
  set(key: string, usage: PodUsage | undefined): boolean {
    const before = this.#pods.get(key);
    if (before === undefined && usage === undefined) return false;
    if (before && usage && sameUsage(before, usage)) return false;
    if (before === undefined && usage !== undefined && this.#assumed.size > 0) {
      const assumed = this.#assumed.take(usage);
      if (assumed) this.#account(assumed, -1);
    }
    if (before) this.#account(before, -1);
    if (usage) {
      this.#pods.set(key, this.#shared(usage));
      this.#account(usage, 1);
    } else this.#pods.delete(key);
    return true;
  }

  /** `usage`, with the requests and workload key of an alike Pod of its workload where there is one. */
  #shared(usage: PodUsage): PodUsage {
    const alike = this.#alike.get(usage.workload);
    if (alike === undefined) {
      if (this.#alike.size >= ALIKE_WORKLOADS) this.#alike.clear();
      this.#alike.set(usage.workload, usage);
      return usage;
    }
    if (alike.requests === usage.requests || !sameRecord(alike.requests, usage.requests)) return usage;
    return { ...usage, requests: alike.requests, workload: alike.workload };
  }

  /** Counts a Pod topogate admitted held as `usage` until its watch event arrives, or until `expiresAt`. */
  assume(usage: PendingUsage, expiresAt: number): void {
    const dropped = this.#assumed.add(usage, expiresAt);
    if (dropped) this.#account(dropped, -1);
    this.#account(usage, 1);
  }

  /** Stops counting the assumptions expired at `now`; when the next one expires, if one is left. */
  expireAssumed(now: number): number | undefined {
    for (const usage of this.#assumed.expire(now)) this.#account(usage, -1);
    return this.#assumed.nextExpiry();
  }

  /** The current occupancy: the last one while nothing changed, else a new version. */
  freeze(): Occupancy {
    if (this.#last && this.#changed.size === 0 && !this.#pendingChanged) return this.#last;
    this.#version++;
    this.#log.push({ version: this.#version, nodes: this.#changed });
    if (this.#log.length > REMEMBERED_VERSIONS) this.#log.shift();
    this.#changed = new Set();
    for (const workload of this.#largeChanged) this.#workloads.set(workload, this.#large.get(workload)!.freeze());
    this.#largeChanged.clear();
    const requested = this.#requested.freeze();
    const workloads = this.#workloads.freeze();
    if (this.#pendingChanged)
      this.#pendingFrozen = new Map([...this.#pending].map(([label, values]) => [label, new Map(values)]));
    this.#pendingChanged = false;
    const pending = this.#pendingFrozen;
    const log = this.#log;
    const made = this.#made;
    const occupancy: Occupancy = Object.freeze({
      version: this.#version,
      requested: (node: string) => requested.get(node),
      workloadNodes: (workload: string) => workloads.get(workload),
      pendingUnder: (label: string) => pending.get(label),
      changedSince: (earlier: Occupancy) => (made.has(earlier) ? changedBetween(log, earlier, occupancy) : undefined),
    });
    made.add(occupancy);
    return (this.#last = occupancy);
  }

  #account(usage: PodUsage, sign: 1 | -1): void {
    if (usage.node === undefined) return this.#accountPending(usage, sign);
    const { node, requests, workload } = usage;
    const sum: Record<string, number> = { ...this.#requested.get(node) };
    for (const [resource, amount] of Object.entries(requests)) {
      const next = (sum[resource] ?? 0) + sign * amount;
      if (next === 0) delete sum[resource];
      else sum[resource] = next;
    }
    if (Object.keys(sum).length === 0) this.#requested.delete(node);
    else this.#requested.set(node, sum);
    this.#changed.add(node);
    this.#countOn(workload, node, sign);
  }

  /** One more or one fewer of the workload's Pods bound on the node. */
  #countOn(workload: string, node: string, sign: 1 | -1): void {
    const large = this.#large.get(workload);
    if (large !== undefined) {
      add(large, node, sign);
      if (large.size > 0) this.#largeChanged.add(workload);
      else {
        this.#large.delete(workload);
        this.#largeChanged.delete(workload);
        this.#workloads.delete(workload);
      }
      return;
    }
    const nodes = copyOf(this.#workloads.get(workload));
    add(nodes, node, sign);
    if (nodes.size === 0) this.#workloads.delete(workload);
    else if (nodes.size <= SMALL_WORKLOAD) this.#workloads.set(workload, nodes);
    else {
      this.#large.set(workload, cowOf(nodes));
      this.#largeChanged.add(workload);
    }
  }

  #accountPending({ heldTo, requests, workload }: PendingUsage, sign: 1 | -1): void {
    for (const [label, value] of Object.entries(heldTo)) {
      let values = this.#pending.get(label);
      if (values === undefined) this.#pending.set(label, (values = new Map()));
      const before = values.get(value);
      const pods = (before?.pods ?? 0) + sign;
      if (pods <= 0) {
        values.delete(value);
        if (values.size === 0) this.#pending.delete(label);
        continue;
      }
      const sum: Record<string, number> = { ...before?.requests };
      for (const [resource, amount] of Object.entries(requests)) sum[resource] = (sum[resource] ?? 0) + sign * amount;
      const workloads = new Map(before?.workloads);
      const count = (workloads.get(workload) ?? 0) + sign;
      if (count > 0) workloads.set(workload, count);
      else workloads.delete(workload);
      values.set(value, { pods, requests: sum, workloads });
    }
    this.#pendingChanged = true;
  }
}

/**
 * The union of the changes after `earlier` up to `later`; undefined when the log no longer reaches back to it.
 * Walked from the newest: `earlier` is nearly always the version before, so the walk reads one or two entries
 * rather than all 256 of a full log.
 */
function changedBetween(log: readonly Change[], earlier: Occupancy, later: Occupancy): ReadonlySet<string> | undefined {
  if (earlier === later) return new Set();
  if (earlier.version >= later.version || log.length === 0 || log[0]!.version > earlier.version + 1) return undefined;
  const nodes = new Set<string>();
  for (let i = log.length - 1; i >= 0 && log[i]!.version > earlier.version; i--)
    if (log[i]!.version <= later.version) for (const node of log[i]!.nodes) nodes.add(node);
  return nodes;
}

interface Counts {
  get(key: string): number | undefined;
  set(key: string, count: number): unknown;
  delete(key: string): boolean;
}

/** Adds `sign` to the key's count; a count of zero is no entry. */
function add(counts: Counts, key: string, sign: 1 | -1): void {
  const count = (counts.get(key) ?? 0) + sign;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}

function cowOf(nodes: ReadonlyMap<string, number>): CowMap<number> {
  const cow = new CowMap<number>();
  for (const [node, count] of nodes) cow.set(node, count);
  return cow;
}

function sameUsage(a: PodUsage, b: PodUsage): boolean {
  if (a.node !== b.node || a.workload !== b.workload) return false;
  if (a.node === undefined && b.node === undefined && !sameRecord(a.heldTo, b.heldTo)) return false;
  return sameRecord(a.requests, b.requests);
}
