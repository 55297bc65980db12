// Nodes in stable slots with their label, schedulability and taint indexes,
// kept up to date one node at a time. A node keeps its slot while it exists;
// a deleted node's slot is reused by the next new node, so NodeSets stay as
// short as the cluster is large. Which nodes carry a label key is indexed for
// every key; a key's values only once a snapshot is asked about them (and a
// node carries the key): most of a cluster's label keys are read by nothing,
// and indexing every value of every key was a third of applying the first
// list of 65,000 Nodes (docs/benchmarks.md, "Twenty-fourth look").

import type { Labels, Taint } from '../kube/types.ts';
import { CowMap } from './cow/map.ts';
import { SlotSets } from './cow/slot-sets.ts';
import { CowSlots, type Slots } from './cow/slots.ts';
import type { NodeIndex, NodeInfo, TaintGroup } from './model.ts';
import { NodeSet } from './nodeset.ts';
import type { NodeFacts } from './read/node.ts';
import { sameRecord } from './sameRecord.ts';

const ALL = 'all';
/** A node's update copies one bucket of the names: about 64 nodes at 65,000, not 1,000. */
const NAME_BUCKETS = 1024;
const SCHEDULABLE = 'schedulable';

export class NodeTable {
  readonly #byName = new CowMap<NodeInfo>(NAME_BUCKETS);
  readonly #bySlot = new CowSlots<NodeInfo>();
  #slotsChanged = false;
  /** Slots ever used: the next new node's, when none is free. */
  #slots = 0;
  readonly #free: number[] = [];
  readonly #base = new SlotSets();
  readonly #keys = new SlotSets();
  readonly #values = new Map<string, SlotSets>();
  /** The label keys whose values are indexed: each from the first demand for it (demand). */
  readonly #indexed = new Set<string>();
  /** #indexed as the snapshots see it: a copy made when a key is added. */
  #indexedNow: ReadonlySet<string> = new Set();
  readonly #changedKeys = new Set<string>();
  readonly #taints = new SlotSets();
  readonly #taintLists = new Map<string, readonly Taint[]>();
  #frozen: FrozenNodes | undefined;
  readonly #labelValues = new Map<string, ReadonlyMap<string, NodeSet>>();

  get(name: string): NodeInfo | undefined {
    return this.#byName.get(name);
  }

  get size(): number {
    return this.#byName.size;
  }

  /**
   * Adds or replaces a node: what it replaced (null for a new node), or undefined when nothing a decision reads
   * changed.
   */
  upsert(facts: NodeFacts): NodeInfo | null | undefined {
    const old = this.#byName.get(facts.name);
    if (old && sameNode(old, facts)) return undefined;
    const slot = old?.slot ?? this.#free.pop() ?? this.#slots++;
    const node: NodeInfo = { ...facts, slot };
    this.#reindex(old, node);
    this.#byName.set(node.name, node);
    this.#setSlot(slot, node);
    return old ?? null;
  }

  remove(name: string): boolean {
    const old = this.#byName.get(name);
    if (!old) return false;
    this.#reindex(old, undefined);
    this.#byName.delete(name);
    this.#setSlot(old.slot, undefined);
    this.#free.push(old.slot);
    return true;
  }

  /**
   * Indexes `key`'s values from now on, from every node's as they are (a snapshot was asked about them). Called by
   * snapshots only for a key some node carries, so what a Pod names cannot grow the index.
   */
  demand(key: string): void {
    if (this.#indexed.has(key)) return;
    this.#indexed.add(key);
    this.#indexedNow = new Set(this.#indexed);
    const values = this.#valuesOf(key);
    for (let slot = 0; slot < this.#slots; slot++) {
      const value = this.#bySlot.get(slot)?.labels[key];
      if (value !== undefined) values.add(value, slot);
    }
  }

  freeze(): NodeIndex {
    if (this.#frozen && !this.#slotsChanged) return this.#frozen;
    for (const key of this.#changedKeys) {
      const values = this.#values.get(key)?.freeze();
      if (values && values.size > 0) this.#labelValues.set(key, values);
      else {
        this.#labelValues.delete(key);
        this.#values.delete(key);
      }
    }
    // The outer map is copied (one entry per label key) only when a key changed.
    const labelValues =
      this.#changedKeys.size > 0 || !this.#frozen ? new Map(this.#labelValues) : this.#frozen.labelValueMaps;
    this.#changedKeys.clear();
    const taintSets = this.#taints.freeze();
    const taintGroups =
      this.#frozen && this.#frozen.taintSets === taintSets
        ? this.#frozen.taintGroupList
        : groupsOf(taintSets, this.#taintLists);
    const base = this.#base.freeze();
    this.#frozen = new FrozenNodes({
      byName: this.#byName.freeze(),
      bySlot: this.#bySlot.freeze(),
      all: base.get(ALL) ?? NodeSet.EMPTY,
      schedulable: base.get(SCHEDULABLE) ?? NodeSet.EMPTY,
      keys: this.#keys.freeze(),
      indexed: this.#indexedNow,
      labelValues,
      demand: (key) => this.demand(key),
      taintSets,
      taintGroups,
    });
    this.#slotsChanged = false;
    return this.#frozen;
  }

  #setSlot(slot: number, node: NodeInfo | undefined): void {
    this.#bySlot.set(slot, node);
    this.#slotsChanged = true;
  }

  /** Moves a slot between sets only where `before` and `after` differ: an update costs what it changed. */
  #reindex(before: NodeInfo | undefined, after: NodeInfo | undefined): void {
    const slot = (before ?? after)!.slot;
    const none: Labels = {};
    const was = before?.labels ?? none;
    const is = after?.labels ?? none;
    if (!before) this.#base.add(ALL, slot);
    if (!after) this.#base.remove(ALL, slot);
    const schedulable = after !== undefined && isSchedulable(after);
    if (before === undefined || isSchedulable(before) !== schedulable) {
      if (schedulable) this.#base.add(SCHEDULABLE, slot);
      else this.#base.remove(SCHEDULABLE, slot);
    }
    // for-in, not Object.entries: a list of 65,000 Nodes would allocate an entry array per label.
    for (const key in was) {
      const value = was[key]!;
      if (is[key] === value) continue;
      if (this.#indexed.has(key)) this.#valuesOf(key).remove(value, slot);
      if (is[key] === undefined) this.#keys.remove(key, slot);
    }
    for (const key in is) {
      const value = is[key]!;
      if (was[key] === value) continue;
      if (this.#indexed.has(key)) this.#valuesOf(key).add(value, slot);
      if (was[key] === undefined) this.#keys.add(key, slot);
    }
    const oldGroup = before && JSON.stringify(schedulingTaints(before.taints));
    const taints = after && schedulingTaints(after.taints);
    const newGroup = taints && JSON.stringify(taints);
    if (oldGroup === newGroup) return;
    if (oldGroup !== undefined) this.#taints.remove(oldGroup, slot);
    if (newGroup !== undefined) {
      this.#taintLists.set(newGroup, taints!);
      this.#taints.add(newGroup, slot);
    }
  }

  /** The key's sets, about to change: a set with no draft yet is a key changed since the last freeze. */
  #valuesOf(key: string): SlotSets {
    let sets = this.#values.get(key);
    if (!sets) this.#values.set(key, (sets = new SlotSets()));
    if (!sets.changed) this.#changedKeys.add(key);
    return sets;
  }
}

interface FrozenParts {
  readonly byName: ReadonlyMap<string, NodeInfo>;
  readonly bySlot: Slots<NodeInfo>;
  readonly all: NodeSet;
  readonly schedulable: NodeSet;
  readonly keys: ReadonlyMap<string, NodeSet>;
  /** The keys whose values the table indexed when frozen: labelValues holds those (an empty one left out). */
  readonly indexed: ReadonlySet<string>;
  readonly labelValues: ReadonlyMap<string, ReadonlyMap<string, NodeSet>>;
  /** Tells the table a key's values were asked for. */
  readonly demand: (key: string) => void;
  readonly taintSets: ReadonlyMap<string, NodeSet>;
  readonly taintGroups: readonly TaintGroup[];
}

class FrozenNodes implements NodeIndex {
  readonly #parts: FrozenParts;
  /** Values of keys the table did not index when this was frozen, made from this snapshot's nodes when asked. */
  readonly #asked = new Map<string, ReadonlyMap<string, NodeSet>>();

  constructor(parts: FrozenParts) {
    this.#parts = parts;
  }

  get count(): number {
    return this.#parts.byName.size;
  }

  get labelValueMaps(): ReadonlyMap<string, ReadonlyMap<string, NodeSet>> {
    return this.#parts.labelValues;
  }

  get taintSets(): ReadonlyMap<string, NodeSet> {
    return this.#parts.taintSets;
  }

  get taintGroupList(): readonly TaintGroup[] {
    return this.#parts.taintGroups;
  }

  get(name: string): NodeInfo | undefined {
    return this.#parts.byName.get(name);
  }

  bySlot(slot: number): NodeInfo | undefined {
    return this.#parts.bySlot.get(slot);
  }

  all(): NodeSet {
    return this.#parts.all;
  }

  schedulable(): NodeSet {
    return this.#parts.schedulable;
  }

  withLabel(key: string): NodeSet {
    return this.#parts.keys.get(key) ?? NodeSet.EMPTY;
  }

  withLabelValue(key: string, value: string): NodeSet {
    return this.labelValues(key).get(value) ?? NodeSet.EMPTY;
  }

  labelValues(key: string): ReadonlyMap<string, NodeSet> {
    const parts = this.#parts;
    if (parts.indexed.has(key)) return parts.labelValues.get(key) ?? EMPTY_VALUES;
    const carriers = parts.keys.get(key);
    // No node carries the key: nothing to index, and a key a Pod makes up stays out of the table.
    if (carriers === undefined) return EMPTY_VALUES;
    let values = this.#asked.get(key);
    if (values === undefined) {
      parts.demand(key);
      this.#asked.set(key, (values = valuesOf(key, carriers, parts.bySlot)));
    }
    return values;
  }

  taintGroups(): readonly TaintGroup[] {
    return this.#parts.taintGroups;
  }
}

const EMPTY_VALUES: ReadonlyMap<string, NodeSet> = new Map();

/** The key's values on the nodes that carry it, each with its nodes. */
function valuesOf(key: string, carriers: NodeSet, bySlot: Slots<NodeInfo>): ReadonlyMap<string, NodeSet> {
  const slotsByValue = new Map<string, number[]>();
  for (const slot of carriers.slots()) {
    const value = bySlot.get(slot)?.labels[key];
    if (value === undefined) continue;
    const slots = slotsByValue.get(value);
    if (slots) slots.push(slot);
    else slotsByValue.set(value, [slot]);
  }
  const values = new Map<string, NodeSet>();
  for (const [value, slots] of slotsByValue) values.set(value, NodeSet.of(slots));
  return values;
}

function isSchedulable(node: NodeInfo): boolean {
  return !node.unschedulable && node.ready;
}

/** The taints that keep Pods off a node (PreferNoSchedule only steers), in a canonical order. */
function schedulingTaints(taints: readonly Taint[]): readonly Taint[] {
  return taints
    .filter((t) => t.effect !== 'PreferNoSchedule')
    .map((t) => (t.value ? { key: t.key, value: t.value, effect: t.effect } : { key: t.key, effect: t.effect }))
    .sort((a, b) => compare(a.key, b.key) || compare(a.effect, b.effect) || compare(a.value ?? '', b.value ?? ''));
}

function groupsOf(sets: ReadonlyMap<string, NodeSet>, lists: Map<string, readonly Taint[]>): readonly TaintGroup[] {
  for (const key of lists.keys()) if (!sets.has(key)) lists.delete(key);
  return [...sets].map(([key, nodes]) => ({ taints: lists.get(key) ?? [], nodes }));
}

function sameNode(a: NodeInfo, b: NodeFacts): boolean {
  return (
    a.unschedulable === b.unschedulable &&
    a.ready === b.ready &&
    sameRecord(a.labels, b.labels) &&
    sameRecord(a.allocatable, b.allocatable) &&
    JSON.stringify(a.taints) === JSON.stringify(b.taints) &&
    a.addresses.join(',') === b.addresses.join(',')
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
