// Which nodes have one NUMA cell that fits a whole request, best fit first.
// Answers are memoised per request shape for the life of a snapshot; the
// next snapshot patches its parent's answers for the nodes that changed
// instead of scanning every NodeResourceTopology again.

import type { NodeIndex, NodeResourceTopology, NumaCandidate, NumaFit, NumaIndex, NumaZone, ResourceList } from './model.ts';
import { NodeSet } from './nodeset.ts';

/** Best candidate per node for one request shape. */
type Candidates = ReadonlyMap<string, NumaCandidate>;

interface Shape {
  readonly request: ReadonlyArray<readonly [string, number]>;
  readonly candidates: Candidates;
  fit?: NumaFit;
}

// Bounds the memo: request shapes come from Pods, so an endless variety
// would otherwise grow it without end.
const MAX_SHAPES = 512;

export class NumaMemo implements NumaIndex {
  readonly #topologies: ReadonlyMap<string, NodeResourceTopology>;
  readonly #nodes: NodeIndex;
  readonly #shapes = new Map<string, Shape>();
  #parent: { readonly memo: NumaMemo; readonly changed: ReadonlySet<string> } | undefined;
  #known: NodeSet | undefined;

  /** `changed`: names of the nodes whose Node or NodeResourceTopology differ from the parent's. */
  constructor(topologies: ReadonlyMap<string, NodeResourceTopology>, nodes: NodeIndex, parent?: NumaMemo, changed?: ReadonlySet<string>) {
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
      const slots: number[] = [];
      for (const name of this.#topologies.keys()) {
        const node = this.#nodes.get(name);
        if (node) slots.push(node.slot);
      }
      this.#known = NodeSet.of(slots);
    }
    return this.#known;
  }

  fit(request: ResourceList): NumaFit {
    const entries = Object.entries(request).filter(([, amount]) => amount > 0).sort(([a], [b]) => (a < b ? -1 : 1));
    const key = entries.map(([name, amount]) => `${name}=${amount}`).join(',');
    let shape = this.#shapes.get(key);
    if (!shape) {
      shape = this.#derive(key, entries);
      if (this.#shapes.size >= MAX_SHAPES) this.#shapes.clear();
      this.#shapes.set(key, shape);
    }
    shape.fit ??= rank(shape.candidates, this.#nodes);
    return shape.fit;
  }

  #derive(key: string, request: Shape['request']): Shape {
    const parent = this.#parent;
    const inherited = parent ? parent.memo.#shapes.get(key) : undefined;
    if (!parent || !inherited) {
      const candidates = new Map<string, NumaCandidate>();
      for (const name of this.#topologies.keys()) this.#place(candidates, name, request);
      return { request, candidates };
    }
    // Nothing changed for NUMA: slots and zones are the parent's, and so is the answer.
    if (parent.changed.size === 0) return inherited;
    const candidates = new Map(inherited.candidates);
    for (const name of parent.changed) this.#place(candidates, name, request);
    return { request, candidates };
  }

  #place(candidates: Map<string, NumaCandidate>, name: string, request: Shape['request']): void {
    const topology = this.#topologies.get(name);
    const best = topology && this.#nodes.get(name) ? bestZone(topology.zones, request) : undefined;
    if (best) candidates.set(name, { node: name, zone: best.zone, leftover: best.leftover });
    else candidates.delete(name);
  }
}

/** The zone that fits the request with least leftover, else undefined. */
export function bestZone(zones: readonly NumaZone[], request: ReadonlyArray<readonly [string, number]>): { zone: string; leftover: number } | undefined {
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

function rank(candidates: Candidates, nodes: NodeIndex): NumaFit {
  const ranked = [...candidates.values()].sort((a, b) => a.leftover - b.leftover || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  const slots: number[] = [];
  for (const candidate of ranked) {
    const node = nodes.get(candidate.node);
    if (node) slots.push(node.slot);
  }
  return { nodes: NodeSet.of(slots), ranked };
}
