// pack's room: how many more Pods of one request shape each domain holds, counted from the nodes' free capacity,
// brought up to date by the nodes a bind touched, less the Pods held to a domain and not bound yet.

import type { NodeInfo, Occupancy, PendingUnder, ResourceList, TopologySnapshot } from '../../topology/model.ts';
import type { NodeSet } from '../../topology/nodeset.ts';
import type { PackRule } from '../types.ts';
import type { Domain, Layout } from './packLayout.ts';

/** No allowed node in the domain: it is no candidate at all. */
export const OUTSIDE = -1;

/**
 * How many more Pods of one request shape each domain still has room for, among the allowed nodes, at one
 * occupancy: one integer per domain, so that the next occupancy's Room is a copy and a few corrections.
 */
export class Room {
  readonly counts: Int32Array;
  readonly occupancy: Occupancy;
  /** Some domain has an allowed node (which binds do not change). */
  readonly anyAllowed: boolean;
  readonly layout: Layout;

  constructor(layout: Layout, counts: Int32Array, occupancy: Occupancy, anyAllowed: boolean) {
    this.layout = layout;
    this.counts = counts;
    this.occupancy = occupancy;
    this.anyAllowed = anyAllowed;
  }

  /** Room for how many Pods; OUTSIDE when none of the domain's nodes is allowed. */
  of(domain: Domain): number {
    return this.counts[domain.index]!;
  }

  /** The most room, ties by key (domains are in key order); asked only when nothing fits. */
  roomiest(): Domain {
    let best = this.counts.findIndex((count) => count > OUTSIDE);
    for (let i = best + 1; i < this.counts.length; i++) if (this.counts[i]! > this.counts[best]!) best = i;
    return this.layout.domains[best]!;
  }
}

export function fresh(layout: Layout, counts: Int32Array, occupancy: Occupancy): Room {
  return new Room(
    layout,
    counts,
    occupancy,
    counts.some((count) => count !== OUTSIDE),
  );
}

/** Per domain, how many more Pods of `request` its allowed nodes hold: each node's free capacity (allocatable minus bound Pods' requests) in whole Pods. */
export function countsIn(
  domains: readonly Domain[],
  allowed: NodeSet,
  request: ResourceList,
  occupancy: Occupancy,
): Int32Array {
  const counts = new Int32Array(domains.length).fill(OUTSIDE);
  for (const domain of domains) {
    for (const node of domain.nodes) {
      if (!allowed.has(node.slot)) continue;
      counts[domain.index] = Math.max(0, counts[domain.index]!) + podsFitting(node, request, occupancy);
    }
  }
  return counts;
}

/** `before`'s counts with the nodes whose bound Pods changed counted again: what countsIn would give, for the few nodes a bind touched. */
export function countsAfter(
  before: Room,
  changed: ReadonlySet<string>,
  snapshot: TopologySnapshot,
  allowed: NodeSet,
  request: ResourceList,
  occupancy: Occupancy,
): Int32Array {
  const counts = before.counts.slice();
  for (const name of changed) {
    const domain = before.layout.domainOf.get(name);
    const node = snapshot.nodes.get(name);
    if (!domain || !node || !allowed.has(node.slot)) continue;
    counts[domain.index] =
      counts[domain.index]! + podsFitting(node, request, occupancy) - podsFitting(node, request, before.occupancy);
  }
  return counts;
}

/** How many Pods of `request` fit in what the node has left. */
function podsFitting(node: NodeInfo, request: ResourceList, occupancy: Occupancy): number {
  const used = occupancy.requested(node.name) ?? {};
  let fit = Number.POSITIVE_INFINITY;
  for (const resource in request)
    fit = Math.min(fit, Math.floor(((node.allocatable[resource] ?? 0) - (used[resource] ?? 0)) / request[resource]!));
  // A Pod that requests nothing fits wherever the node still takes Pods.
  if (fit === Number.POSITIVE_INFINITY) fit = Math.max(0, Math.floor((node.allocatable.pods ?? 110_000) / 1000));
  return Math.max(0, fit);
}

/** The workload's Pods per domain: bound there, or held there and not bound yet. */
export function placedIn(
  room: Room,
  occupancy: Occupancy,
  pending: ReadonlyMap<Domain, PendingUnder>,
  workload: string,
): Map<Domain, number> {
  const placed = new Map<Domain, number>();
  const add = (domain: Domain, count: number) => {
    if (count > 0 && room.of(domain) !== OUTSIDE) placed.set(domain, (placed.get(domain) ?? 0) + count);
  };
  for (const [node, count] of occupancy.workloadNodes(workload) ?? []) {
    const domain = room.layout.domainOf.get(node);
    if (domain) add(domain, count);
  }
  for (const [domain, held] of pending) add(domain, held.workloads.get(workload) ?? 0);
  return placed;
}

/**
 * The Pods held to a value of the rule's level and not bound yet, by domain. A value that recurs under other
 * paths counts in each of its domains (a Pod held to rack "r1" alone could be in either).
 */
export function pendingByDomain(
  rule: PackRule,
  layout: Layout,
  occupancy: Occupancy,
): ReadonlyMap<Domain, PendingUnder> {
  const pending = new Map<Domain, PendingUnder>();
  for (const [value, held] of occupancy.pendingUnder(rule.level) ?? [])
    for (const domain of layout.byValue.get(value) ?? []) pending.set(domain, held);
  return pending;
}

/** How many Pods of `request` the held Pods' requests take from a domain's room: the scarcest resource decides. */
export function podsTaken(held: PendingUnder, request: ResourceList): number {
  let taken = 0;
  let asked = false;
  for (const resource in request) {
    asked = true;
    taken = Math.max(taken, Math.ceil((held.requests[resource] ?? 0) / request[resource]!));
  }
  // Pods that request nothing are counted in Pods, as podsFitting counts them.
  return asked ? taken : held.pods;
}
