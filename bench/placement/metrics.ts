// The placement metrics: from where the scheduler bound each Pod, the call
// graph and the network between zones, what the placement costs the
// application. Pure: the benchmark's shell reads the cluster, this computes.

import type { V1Pod } from '@kubernetes/client-node';
import { parseQuantity } from '../../src/kube/quantity.ts';

/** A fixed place a workload talks to, outside the placed Pods (the etcd leader's zone). */
export const ZONE_PREFIX = 'zone:';

export interface PlacedPod {
  readonly name: string;
  /** The workload (Deployment) the Pod belongs to. */
  readonly workload: string;
  /** Undefined while Pending. */
  readonly node: string | undefined;
  /** The Pod's effective requests as numbers (cpu in cores, memory in bytes, nvidia.com/gpu in devices). */
  readonly requests: Readonly<Record<string, number>>;
}

export interface NumaCell {
  readonly name: string;
  /** What the cell has free for new Pods (NodeResourceTopology `available`). */
  readonly available: Readonly<Record<string, number>>;
}

export interface NodeFacts {
  readonly name: string;
  readonly zone: string;
  readonly rack?: string;
  readonly gpuMemoryMiB?: number;
  readonly numaCells?: readonly NumaCell[];
}

export interface Link {
  readonly from: string;
  readonly to: string;
  readonly rttMs: number;
}

export interface Network {
  readonly links: readonly Link[];
  /** Two Pods in one zone (a link from a zone to itself overrides it). */
  readonly intraZoneRttMs: number;
}

/** Calls from every replica of `from` to `to`, spread evenly over both sides' bound replicas (kube-proxy's random pick). */
export interface Edge {
  readonly from: string;
  /** A workload, or `zone:NAME` for a fixed place. */
  readonly to: string;
  readonly callsPerSecond: number;
  /** Request and response together. */
  readonly bytesPerCall: number;
}

/** What a GPU workload needs of its node, to judge whether its placement fits. */
export interface GpuNeed {
  readonly workload: string;
  readonly minGpuMemoryMiB: number;
}

export interface Scenario {
  readonly pods: readonly PlacedPod[];
  readonly edges: readonly Edge[];
  readonly gpuNeeds: readonly GpuNeed[];
  /** Workloads that must run inside one rack (gangs). */
  readonly gangs: readonly string[];
}

export interface PlacementMetrics {
  readonly pods: number;
  readonly pendingShare: number;
  /** Call-rate-weighted mean and p99 of the RTT of one call; null when no call could be placed. */
  readonly meanRttMs: number | null;
  readonly p99RttMs: number | null;
  readonly crossZoneBytesPerSecond: number;
  readonly crossZoneCallShare: number | null;
  /** Calls whose caller or callee has no bound replica: they are left out of the figures above. */
  readonly unservedCallShare: number | null;
  /** Bound GPU Pods on a node with the GPU they need and one NUMA cell that holds their whole request. */
  readonly gpuFitShare: number | null;
  readonly gangsInOneRackShare: number | null;
  /** Workloads (gangs aside) of 2+ bound replicas that span 2+ zones: what survives a zone outage. */
  readonly multiZoneWorkloadShare: number | null;
}

export function rttBetween(network: Network, a: string, b: string): number | undefined {
  for (const link of network.links)
    if ((link.from === a && link.to === b) || (link.from === b && link.to === a)) return link.rttMs;
  return a === b ? network.intraZoneRttMs : undefined;
}

/** One caller zone → callee zone share of an edge's calls. */
interface Call {
  readonly from: string;
  readonly to: string;
  readonly callsPerSecond: number;
  readonly bytesPerCall: number;
}

/** Each (caller replica, callee replica) pair gets an equal share; a workload calling itself never calls the same Pod. */
function spread(edge: Edge, podsOf: ReadonlyMap<string, readonly BoundPod[]>): Call[] | undefined {
  const callers = podsOf.get(edge.from) ?? [];
  const callees: readonly BoundPod[] = edge.to.startsWith(ZONE_PREFIX)
    ? [{ name: edge.to, zone: edge.to.slice(ZONE_PREFIX.length) }]
    : (podsOf.get(edge.to) ?? []);
  const pairs: [string, string][] = [];
  for (const caller of callers)
    for (const callee of callees) if (caller.name !== callee.name) pairs.push([caller.zone, callee.zone]);
  if (pairs.length === 0) return undefined;
  const callsPerSecond = edge.callsPerSecond / pairs.length;
  return pairs.map(([from, to]) => ({ from, to, callsPerSecond, bytesPerCall: edge.bytesPerCall }));
}

interface BoundPod {
  readonly name: string;
  readonly zone: string;
}

/** The smallest value whose cumulative weight reaches `q` of the total; null without weight. */
export function weightedQuantile(
  values: readonly { readonly value: number; readonly weight: number }[],
  q: number,
): number | null {
  const sorted = values.filter((v) => v.weight > 0).sort((x, y) => x.value - y.value);
  const total = sorted.reduce((sum, v) => sum + v.weight, 0);
  if (total === 0) return null;
  let seen = 0;
  for (const v of sorted) {
    seen += v.weight;
    if (seen >= q * total * (1 - 1e-9)) return v.value;
  }
  return sorted.at(-1)!.value;
}

const share = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

/**
 * Whether each bound Pod of the GPU workloads fits its node: the GPU it needs, and one NUMA cell
 * holding its whole request, the node's Pods taken in the given order, each into the first cell
 * that holds it (what the kubelet's single-numa-node Topology Manager admits).
 */
export function gpuFits(
  pods: readonly PlacedPod[],
  needs: readonly GpuNeed[],
  nodes: ReadonlyMap<string, NodeFacts>,
): boolean[] {
  const need = new Map(needs.map((n) => [n.workload, n]));
  const free = new Map<string, Record<string, number>[]>();
  const fits: boolean[] = [];
  for (const pod of pods) {
    const wanted = need.get(pod.workload);
    const node = pod.node === undefined ? undefined : nodes.get(pod.node);
    if (!wanted || !node) continue;
    if (!free.has(node.name))
      free.set(
        node.name,
        (node.numaCells ?? []).map((cell) => ({ ...cell.available })),
      );
    const cells = free.get(node.name)!;
    const cell = cells.find((c) => Object.entries(pod.requests).every(([name, amount]) => (c[name] ?? 0) >= amount));
    if (cell) for (const [name, amount] of Object.entries(pod.requests)) cell[name] = (cell[name] ?? 0) - amount;
    fits.push(cell !== undefined && (node.gpuMemoryMiB ?? 0) >= wanted.minGpuMemoryMiB);
  }
  return fits;
}

/**
 * How many gangs of `size` Pods of `request` the racks hold before any is placed, each gang inside one
 * rack: the most a pack rule could achieve. A node holds whole Pods of its free resources (its NUMA cells'
 * `available` summed, as the scheduler counts the node); a node without cells holds none.
 */
export function gangsThatFitRacks(
  nodes: Iterable<NodeFacts>,
  request: Readonly<Record<string, number>>,
  size: number,
): number {
  const room = new Map<string, number>();
  for (const node of nodes) {
    if (node.rack === undefined || !node.numaCells?.length) continue;
    const pods = Math.min(
      ...Object.entries(request).map(([name, amount]) =>
        Math.floor(node.numaCells!.reduce((sum, cell) => sum + (cell.available[name] ?? 0), 0) / amount),
      ),
    );
    room.set(node.rack, (room.get(node.rack) ?? 0) + pods);
  }
  return [...room.values()].reduce((sum, pods) => sum + Math.floor(pods / size), 0);
}

export function placementMetrics(
  scenario: Scenario,
  nodes: ReadonlyMap<string, NodeFacts>,
  network: Network,
): PlacementMetrics {
  const podsOf = new Map<string, BoundPod[]>();
  for (const pod of scenario.pods) {
    const node = pod.node === undefined ? undefined : nodes.get(pod.node);
    if (!node) continue;
    const bound = podsOf.get(pod.workload) ?? [];
    bound.push({ name: pod.name, zone: node.zone });
    podsOf.set(pod.workload, bound);
  }
  const rtts: { value: number; weight: number }[] = [];
  let served = 0;
  let unserved = 0;
  let crossZoneCalls = 0;
  let crossZoneBytesPerSecond = 0;
  for (const edge of scenario.edges) {
    const calls = spread(edge, podsOf);
    if (!calls) {
      unserved += edge.callsPerSecond;
      continue;
    }
    for (const call of calls) {
      const rttMs = rttBetween(network, call.from, call.to);
      if (rttMs === undefined) throw new Error(`no RTT known between ${call.from} and ${call.to}`);
      rtts.push({ value: rttMs, weight: call.callsPerSecond });
      served += call.callsPerSecond;
      if (call.from !== call.to) {
        crossZoneCalls += call.callsPerSecond;
        crossZoneBytesPerSecond += call.callsPerSecond * call.bytesPerCall;
      }
    }
  }
  const weightedSum = rtts.reduce((sum, r) => sum + r.value * r.weight, 0);
  const fits = gpuFits(scenario.pods, scenario.gpuNeeds, nodes);
  const gangsInOneRack = scenario.gangs.filter((gang) => {
    const members = scenario.pods.filter((pod) => pod.workload === gang);
    const racks = new Set(members.map((pod) => (pod.node === undefined ? undefined : nodes.get(pod.node)?.rack)));
    return members.length > 0 && racks.size === 1 && !racks.has(undefined);
  }).length;
  // A gang is meant to sit in one rack: it is judged by that, not by zones.
  const gangs = new Set(scenario.gangs);
  const spanning = [...podsOf].filter(([workload, pods]) => pods.length >= 2 && !gangs.has(workload));
  const pending = scenario.pods.filter((pod) => pod.node === undefined).length;
  return {
    pods: scenario.pods.length,
    pendingShare: share(pending, scenario.pods.length) ?? 0,
    meanRttMs: served === 0 ? null : weightedSum / served,
    p99RttMs: weightedQuantile(rtts, 0.99),
    crossZoneBytesPerSecond,
    crossZoneCallShare: share(crossZoneCalls, served),
    unservedCallShare: share(unserved, served + unserved),
    gpuFitShare: share(fits.filter(Boolean).length, fits.length),
    gangsInOneRackShare: share(gangsInOneRack, scenario.gangs.length),
    multiZoneWorkloadShare: share(
      spanning.filter(([, pods]) => new Set(pods.map((p) => p.zone)).size >= 2).length,
      spanning.length,
    ),
  };
}

/** A Pod's requests summed over its containers, each resource in milli-units (parseQuantity's). */
export function podRequests(pod: V1Pod): Record<string, number> {
  const requests: Record<string, number> = {};
  for (const container of pod.spec?.containers ?? [])
    for (const [name, value] of Object.entries(container.resources?.requests ?? {}))
      requests[name] = (requests[name] ?? 0) + (parseQuantity(value) ?? 0);
  return requests;
}
