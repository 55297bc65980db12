// Which nodes have one NUMA cell that fits a whole request, best fit first.
// Answers are memoised per request shape for the life of a snapshot; the
// next snapshot derives its answer from its parent's for the nodes that
// changed (drop them, merge their new candidates in), instead of scanning
// and sorting every NodeResourceTopology again.

import type {
  NodeIndex,
  NodeResourceTopology,
  NumaCandidate,
  NumaFit,
  NumaIndex,
  NumaZone,
  ResourceList,
} from './model.ts';
import { NodeSet } from './nodeset.ts';

type Request = ReadonlyArray<readonly [string, number]>;

// Bounds the memo: request shapes come from Pods, so an endless variety
// would otherwise grow it without end.
const MAX_SHAPES = 512;

interface Parent {
  readonly memo: NumaMemo;
  /** Names of the nodes whose Node (added or removed) or NodeResourceTopology differ. */
  readonly changed: ReadonlySet<string>;
}

export class NumaMemo implements NumaIndex {
  readonly #topologies: ReadonlyMap<string, NodeResourceTopology>;
  readonly #nodes: NodeIndex;
  readonly #fits = new Map<string, NumaFit>();
  #parent: Parent | undefined;
  #known: NodeSet | undefined;

  constructor(
    topologies: ReadonlyMap<string, NodeResourceTopology>,
    nodes: NodeIndex,
    parent?: NumaMemo,
    changed?: ReadonlySet<string>,
  ) {
    this.#topologies = topologies;
    this.#nodes = nodes;
    if (parent && changed) {
      this.#parent = { memo: parent, changed };
      // Only the newest snapshot derives from its parent: older ones would otherwise be kept alive in a chain.
      parent.#parent = undefined;
    }
  }

  known(): NodeSet {
    if (!this.#known) {
      const parent = this.#parent;
      const inherited = parent ? parent.memo.#known : undefined;
      this.#known =
        parent && inherited
          ? this.#patch(inherited, parent, (name) => this.#topologies.has(name))
          : this.#slotsOf(this.#topologies.keys());
    }
    return this.#known;
  }

  fit(request: ResourceList): NumaFit {
    const names = requested(request);
    let key = '';
    for (const name of names) key += `${key === '' ? '' : ','}${name}=${request[name]}`;
    let fit = this.#fits.get(key);
    if (!fit) {
      fit = this.#derive(
        key,
        names.map((name) => [name, request[name]!] as const),
      );
      if (this.#fits.size >= MAX_SHAPES) this.#fits.clear();
      this.#fits.set(key, fit);
    }
    return fit;
  }

  #derive(key: string, request: Request): NumaFit {
    const parent = this.#parent;
    const inherited = parent ? parent.memo.#fits.get(key) : undefined;
    if (!parent || !inherited) {
      const ranked = this.#candidates(this.#topologies.keys(), request).sort(byFit);
      return { ranked, nodes: this.#slotsOf(ranked.map((c) => c.node)) };
    }
    // Nothing changed for NUMA: slots and zones are the parent's, and so is the answer.
    if (parent.changed.size === 0) return inherited;
    const fresh = this.#candidates(parent.changed, request).sort(byFit);
    const ranked = merge(
      inherited.ranked.filter((c) => !parent.changed.has(c.node)),
      fresh,
    );
    return { ranked, nodes: this.#patch(inherited.nodes, parent, (name) => fresh.some((c) => c.node === name)) };
  }

  /** The parent's set without the changed nodes' old slots, with the slots of those that `keep`. */
  #patch(inherited: NodeSet, parent: Parent, keep: (name: string) => boolean): NodeSet {
    let set = inherited;
    for (const name of parent.changed) {
      const before = parent.memo.#nodes.get(name);
      if (before) set = set.without(before.slot);
    }
    for (const name of parent.changed) {
      const now = this.#nodes.get(name);
      if (now && keep(name)) set = set.with(now.slot);
    }
    return set;
  }

  #candidates(names: Iterable<string>, request: Request): NumaCandidate[] {
    const candidates: NumaCandidate[] = [];
    for (const name of names) {
      const topology = this.#topologies.get(name);
      const best = topology && this.#nodes.get(name) ? bestZone(topology.zones, request) : undefined;
      if (best) candidates.push({ node: name, zone: best.zone, leftover: best.leftover });
    }
    return candidates;
  }

  #slotsOf(names: Iterable<string>): NodeSet {
    const slots: number[] = [];
    for (const name of names) {
      const node = this.#nodes.get(name);
      if (node) slots.push(node.slot);
    }
    return NodeSet.of(slots);
  }
}

/**
 * The resources the request has an amount of, by name: with their amounts, the memo's key. One loop: entries,
 * filter, sort and map made a fit's lookup cost more than half a new Pod's NUMA rule.
 */
function requested(request: ResourceList): string[] {
  const names: string[] = [];
  // Each name put in its place as it comes: a Pod requests a few, and sort() copies the list to sort it.
  for (const name in request) {
    if (!(request[name]! > 0)) continue;
    let at = names.length;
    for (; at > 0 && names[at - 1]! > name; at--) names[at] = names[at - 1]!;
    names[at] = name;
  }
  return names;
}

/** The zone that fits the request with least leftover, else undefined. */
export function bestZone(zones: readonly NumaZone[], request: Request): { zone: string; leftover: number } | undefined {
  let best: { zone: string; leftover: number } | undefined;
  for (const zone of zones) {
    let leftover = 0;
    let fits = true;
    for (const [resource, amount] of request) {
      const available = zone.available[resource];
      if (available === undefined || available < amount) {
        fits = false;
        break;
      }
      leftover += (available - amount) / available;
    }
    if (fits && (!best || leftover < best.leftover || (leftover === best.leftover && zone.name < best.zone))) {
      best = { zone: zone.name, leftover };
    }
  }
  return best;
}

function byFit(a: NumaCandidate, b: NumaCandidate): number {
  return a.leftover - b.leftover || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0);
}

/** Two lists sorted by fit, as one. */
function merge(a: readonly NumaCandidate[], b: readonly NumaCandidate[]): NumaCandidate[] {
  if (b.length === 0) return a as NumaCandidate[];
  const out: NumaCandidate[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.length; k++)
    out[k] = j >= b.length || (i < a.length && byFit(a[i]!, b[j]!) <= 0) ? a[i++]! : b[j++]!;
  return out;
}
