// What one arm's placement on the fabric is worth: calls under Service
// trafficDistribution PreferSameZone, zone resilience, gangs and what they
// leave of the racks. Routing reads the labels (kube-proxy and the
// EndpointSlice controller see nothing else); round trips and bytes read where
// the nodes really are. Pure.

import type { V1Pod } from '@kubernetes/client-node';
import type { FabricNode } from './fabric.ts';
import { GPUS_PER_NODE, rttBetween } from './fabric.ts';
import type { Edge } from './metrics.ts';
import { podRequests, weightedQuantile } from './metrics.ts';
import type { TraceWorkload } from './trace.ts';
import { workloadId } from './trace.ts';

export interface FabricPod {
  readonly name: string;
  /** `namespace/name` of its workload. */
  readonly workload: string;
  readonly node: string | undefined;
  readonly cpuMilli: number;
  readonly gpus: number;
}

export interface FabricMetrics {
  readonly pods: number;
  readonly pending: number;
  /** Pending Pods that some node still had room for (by requests; a gang Pod counts against GPU nodes only). */
  readonly pendingThatFits: number;
  readonly meanRttMs: number | null;
  readonly p99RttMs: number | null;
  readonly crossZoneBytesPerSecond: number;
  /** The least any placement that keeps every 2+-replica workload across 2+ zones sends across zones. */
  readonly crossZoneBytesFloor: number;
  readonly crossZoneCallShare: number | null;
  /** Workloads (gangs aside) of 2+ bound replicas whose replicas really sit in 2+ zones. */
  readonly haKept: number | null;
  readonly gangsInOneRack: number | null;
  /** GPU racks with every GPU free at the end: what a 32-Pod gang could still have. */
  readonly freeGpuRacks: number;
  /** Bound Pods on a node whose zone label is wrong. */
  readonly podsOnMislabelledNodes: number;
}

/** A Pod as the metrics read it: its workload by namespace and `app` label, its node, its requests. */
export function fabricPod(pod: V1Pod): FabricPod {
  const requests = podRequests(pod);
  // podRequests gives milli-units: the cpu in millicores as it is, the GPUs in whole devices.
  return {
    name: pod.metadata?.name ?? '',
    workload: workloadId(pod.metadata?.namespace ?? '', pod.metadata?.labels?.['app'] ?? ''),
    node: pod.spec?.nodeName || undefined,
    cpuMilli: Math.round(requests['cpu'] ?? 0),
    gpus: (requests['nvidia.com/gpu'] ?? 0) / 1000,
  };
}

interface Bound {
  readonly pod: string;
  readonly node: FabricNode;
}

/**
 * kube-proxy with PreferSameZone: a caller sends to the ready endpoints whose zone (its node's label) is
 * its own node's zone label; when there are none, to every endpoint. Each caller replica carries an equal
 * share of the edge's calls, each chosen endpoint an equal share of the caller's.
 */
function callsOf(edge: Edge, podsOf: ReadonlyMap<string, readonly Bound[]>) {
  const callers = podsOf.get(edge.from) ?? [];
  const endpoints = podsOf.get(edge.to) ?? [];
  const calls: { rttMs: number; crossZone: boolean; callsPerSecond: number }[] = [];
  for (const caller of callers) {
    const others = endpoints.filter((e) => e.pod !== caller.pod);
    const local = others.filter((e) => e.node.labelled.zone === caller.node.labelled.zone);
    const chosen = local.length > 0 ? local : others;
    for (const endpoint of chosen)
      calls.push({
        rttMs: rttBetween(caller.node.truth, endpoint.node.truth, caller.node.name === endpoint.node.name),
        crossZone: caller.node.truth.zone !== endpoint.node.truth.zone,
        callsPerSecond: edge.callsPerSecond / callers.length / chosen.length,
      });
  }
  return calls;
}

/**
 * What crosses zones whatever the placement, once every workload of 2+ replicas runs in 2+ zones: a callee of
 * one replica sits in one zone, so at least one of its 2+ callers' replicas is in another, and PreferSameZone
 * sends that replica's share of the calls (one over the caller's replicas) across. A callee of 2+ replicas can
 * run in each of its callers' two zones, so its calls need not cross.
 */
export function crossZoneFloor(workloads: readonly TraceWorkload[], edges: readonly Edge[]): number {
  const replicas = new Map(workloads.map((w) => [workloadId(w.namespace, w.name), w.replicas]));
  let bytesPerSecond = 0;
  for (const edge of edges) {
    const [callers, callees] = [replicas.get(edge.from) ?? 0, replicas.get(edge.to) ?? 0];
    if (callees === 1 && callers >= 2) bytesPerSecond += (edge.callsPerSecond / callers) * edge.bytesPerCall;
  }
  return bytesPerSecond;
}

export function fabricMetrics(
  pods: readonly FabricPod[],
  workloads: readonly TraceWorkload[],
  edges: readonly Edge[],
  nodes: ReadonlyMap<string, FabricNode>,
  tenantUse: ReadonlyMap<string, { cpuMilli: number; gpus: number }>,
): FabricMetrics {
  const podsOf = new Map<string, Bound[]>();
  for (const pod of pods) {
    const node = pod.node === undefined ? undefined : nodes.get(pod.node);
    if (!node) continue;
    podsOf.set(pod.workload, [...(podsOf.get(pod.workload) ?? []), { pod: pod.name, node }]);
  }
  const rtts: { value: number; weight: number }[] = [];
  let served = 0;
  let crossZoneCalls = 0;
  let crossZoneBytesPerSecond = 0;
  for (const edge of edges)
    for (const call of callsOf(edge, podsOf)) {
      rtts.push({ value: call.rttMs, weight: call.callsPerSecond });
      served += call.callsPerSecond;
      if (call.crossZone) {
        crossZoneCalls += call.callsPerSecond;
        crossZoneBytesPerSecond += call.callsPerSecond * edge.bytesPerCall;
      }
    }
  const weighted = rtts.reduce((sum, r) => sum + r.value * r.weight, 0);
  const ids = (gang: boolean) => workloads.filter((w) => w.gang === gang).map((w) => workloadId(w.namespace, w.name));
  const spanning = ids(false)
    .map((id) => podsOf.get(id) ?? [])
    .filter((bound) => bound.length >= 2);
  const gangs = ids(true);
  const whole = gangs.filter((id) => {
    const members = pods.filter((pod) => pod.workload === id);
    const racks = new Set(podsOf.get(id)?.map((b) => b.node.truth.rack));
    return members.length > 0 && members.every((pod) => pod.node !== undefined) && racks.size === 1;
  });
  const used = usage(pods, tenantUse);
  const racks = new Map<string, number>();
  for (const node of nodes.values())
    if (node.gpu) racks.set(node.truth.rack, (racks.get(node.truth.rack) ?? 0) + (used.get(node.name)?.gpus ?? 0));
  const pending = pods.filter((pod) => pod.node === undefined);
  const room = (pod: FabricPod) =>
    [...nodes.values()].some((node) => {
      const taken = used.get(node.name) ?? { cpuMilli: 0, gpus: 0 };
      if (pod.gpus > 0) return node.gpu && taken.gpus + pod.gpus <= GPUS_PER_NODE;
      return !node.gpu && taken.cpuMilli + pod.cpuMilli <= node.cpuMilli;
    });
  return {
    pods: pods.length,
    pending: pending.length,
    pendingThatFits: pending.filter(room).length,
    meanRttMs: served === 0 ? null : weighted / served,
    p99RttMs: weightedQuantile(rtts, 0.99),
    crossZoneBytesPerSecond,
    crossZoneBytesFloor: crossZoneFloor(workloads, edges),
    crossZoneCallShare: served === 0 ? null : crossZoneCalls / served,
    haKept:
      spanning.length === 0
        ? null
        : spanning.filter((bound) => new Set(bound.map((b) => b.node.truth.zone)).size >= 2).length / spanning.length,
    gangsInOneRack: gangs.length === 0 ? null : whole.length / gangs.length,
    freeGpuRacks: [...racks.values()].filter((gpus) => gpus === 0).length,
    podsOnMislabelledNodes: [...podsOf.values()].flat().filter((b) => b.node.truth.zone !== b.node.labelled.zone)
      .length,
  };
}

/** What each node has taken: other tenants' Pods and the bound Pods of the run. */
function usage(
  pods: readonly FabricPod[],
  tenantUse: ReadonlyMap<string, { cpuMilli: number; gpus: number }>,
): Map<string, { cpuMilli: number; gpus: number }> {
  const used = new Map<string, { cpuMilli: number; gpus: number }>();
  for (const [node, use] of tenantUse) used.set(node, { ...use });
  for (const pod of pods) {
    if (pod.node === undefined) continue;
    const taken = used.get(pod.node) ?? { cpuMilli: 0, gpus: 0 };
    used.set(pod.node, { cpuMilli: taken.cpuMilli + pod.cpuMilli, gpus: taken.gpus + pod.gpus });
  }
  return used;
}
