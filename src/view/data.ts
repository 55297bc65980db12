// What the topology view shows, read from one topology snapshot, the policies
// in force and the recent decisions: plain JSON, the same for the page and for
// GET /api/snapshot. Pure: the clock comes in as `now`. Lists that grow with the
// cluster are capped, their totals kept, so a 10,000-node cluster stays a page.

import type { SchedulingPolicy } from '../policy/types.ts';
import type { NodeInfo, Occupancy, SourceStatus, TopologySnapshot } from '../topology/model.ts';
import type { ControlPlaneStatus } from '../ports/controlplane.ts';
import { controlPlaneFigures, type ControlPlaneFigures } from './controlPlane.ts';
import type { History, HistoryEvent } from './history.ts';
import { ZONE_LABEL } from '../kube/labels.ts';
import { topologyMap, type TopologyMap } from './map.ts';
import { workloadRows, type WorkloadRow } from './placements.ts';
import type { RecentDecision } from './recent.ts';
import { whyNoLeader, whyNoLinks, whySource } from './why.ts';

/** Nodes and NUMA rows listed at most; the counts are always whole. */
export const listCap = 200;

export interface ViewInput {
  readonly snapshot: TopologySnapshot;
  readonly policies: readonly SchedulingPolicy[];
  /** The policy provider's readiness: why the last reload failed, if it did. */
  readonly policyProblem?: string;
  readonly decisions: readonly RecentDecision[];
  /** The control plane's measured status, where serve measures it (--topology kube). */
  readonly controlPlaneStatus?: ControlPlaneStatus;
  /** What is bound now (newer than the snapshot's); the snapshot's when absent. */
  readonly occupancy?: Occupancy;
  readonly history?: History;
  readonly now: number;
}

/** Why a section is empty, by section; a section with something to show is absent. */
export interface EmptyReasons {
  readonly links?: string;
  readonly etcdLeader?: string;
  readonly gpus?: string;
  readonly numa?: string;
  readonly controlPlane?: string;
  readonly placements?: string;
  readonly decisions?: string;
  readonly trends?: string;
}

export interface ViewData {
  readonly generatedAt: string;
  readonly snapshotVersion: number;
  readonly map: TopologyMap;
  readonly empty: EmptyReasons;
  /** The zone pairs with RTT samples, and the leader and degraded-node changes, newest first. */
  readonly trends: { readonly pairs: readonly (readonly [string, string])[]; readonly events: readonly HistoryEvent[] };
  /** The workloads the recent decisions name. */
  readonly workloads: readonly WorkloadRow[];
  readonly zones: readonly ZoneRow[];
  readonly nodes: { readonly total: number; readonly listed: readonly NodeRow[] };
  readonly network?: NetworkView;
  readonly gpus: readonly GpuRow[];
  readonly numa: { readonly total: number; readonly listed: readonly NumaRow[] };
  readonly etcd: { readonly leader?: string; readonly members: readonly MemberRow[] };
  readonly controlPlane: readonly {
    readonly component: string;
    readonly name: string;
    readonly node?: string;
    readonly zone?: string;
  }[];
  readonly controlPlaneFigures?: ControlPlaneFigures;
  readonly policies: { readonly problem?: string; readonly listed: readonly PolicyRow[] };
  readonly decisions: readonly RecentDecision[];
  readonly sources: readonly SourceRow[];
}

export interface ZoneRow {
  readonly name: string;
  readonly nodes: number;
  readonly schedulable: number;
  readonly cordoned: number;
  readonly notReady: number;
  readonly degraded: number;
}

export interface NodeRow {
  readonly name: string;
  readonly zone?: string;
  readonly cordoned: boolean;
  readonly ready: boolean;
  readonly degradedRttMs?: number;
  readonly gpu?: string;
}

export interface NetworkView {
  readonly domainLabel: string;
  readonly domains: readonly string[];
  /** Seconds since status.observedAt; absent when the links are only declared. */
  readonly ageSeconds?: number;
  /** Row-major: cells[i][j] is the link from domains[i] to domains[j]. */
  readonly cells: readonly (readonly LinkCell[])[];
}

export interface LinkCell {
  readonly rttMs?: number;
  readonly source: 'measured' | 'declared' | 'unknown' | 'self';
  readonly bandwidthGbps?: number;
}

export interface GpuRow {
  readonly product: string;
  readonly source: 'GPU Feature Discovery labels' | 'ResourceSlices';
  readonly nodes: number;
  readonly gpus: number;
  readonly memoryMiB?: number;
}

export interface NumaRow {
  readonly node: string;
  readonly zone: string;
  readonly cpu: number;
  readonly memoryGiB: number;
}

export interface MemberRow {
  readonly name: string;
  readonly node?: string;
  readonly zone?: string;
  readonly isLeader: boolean;
  readonly peerRttMs: Readonly<Record<string, number>>;
}

export interface PolicyRow {
  readonly name: string;
  /** Where it comes from: its file, or `SchedulingPolicy/<name>` for the cluster's objects. */
  readonly source?: string;
  readonly priority: number;
  readonly enforcement: string;
  readonly rolloutPercent: number;
  readonly rules: readonly string[];
  readonly onUnsatisfiable: string;
}

export interface SourceRow {
  readonly name: string;
  readonly synced: boolean;
  readonly disabled?: string;
  readonly objects: number;
  readonly ageSeconds?: number;
}

export function viewData(input: ViewInput): ViewData {
  const { snapshot, policies, policyProblem, decisions, controlPlaneStatus, history, now } = input;
  const occupancy = input.occupancy ?? snapshot.pods;
  const nodes = [...snapshot.nodes.all().slots()].map((slot) => snapshot.nodes.bySlot(slot)!);
  const zoneOf = (name: string | undefined) => (name ? snapshot.nodes.get(name)?.labels[ZONE_LABEL] : undefined);
  const degraded = snapshot.network?.degradedNodes ?? new Map();
  return {
    generatedAt: new Date(now).toISOString(),
    snapshotVersion: snapshot.version,
    map: topologyMap(snapshot, occupancy, now),
    empty: emptyReasons(snapshot, decisions, history),
    trends: { pairs: history?.pairs() ?? [], events: history?.events() ?? [] },
    workloads: workloadRows(decisions),
    zones: zoneRows(nodes, degraded),
    nodes: { total: nodes.length, listed: nodes.slice(0, listCap).map((node) => nodeRow(node, degraded)) },
    ...(snapshot.network && { network: networkView(snapshot, now) }),
    gpus: gpuRows(snapshot),
    numa: numaRows(snapshot),
    etcd: {
      ...(snapshot.etcd.leader && { leader: snapshot.etcd.leader.name }),
      members: snapshot.etcd.members.map((member) => ({
        name: member.name,
        ...(member.nodeName !== undefined && { node: member.nodeName }),
        ...(zoneOf(member.nodeName) !== undefined && { zone: zoneOf(member.nodeName) }),
        isLeader: member.isLeader,
        peerRttMs: member.peerRttMs,
      })),
    },
    controlPlane: snapshot.controlPlane.map((pod) => ({
      component: pod.component,
      name: pod.name,
      ...(pod.nodeName !== undefined && { node: pod.nodeName }),
      ...(zoneOf(pod.nodeName) !== undefined && { zone: zoneOf(pod.nodeName) }),
    })),
    ...(controlPlaneStatus !== undefined && { controlPlaneFigures: controlPlaneFigures(controlPlaneStatus, now) }),
    policies: {
      ...(policyProblem !== undefined && { problem: policyProblem }),
      listed: policies.map(policyRow),
    },
    decisions,
    sources: [...snapshot.sources.values()].map((source) => sourceRow(source, now)),
  };
}

function nodeRow(node: NodeInfo, degraded: ReadonlyMap<string, { readonly rttMs: number }>): NodeRow {
  return {
    name: node.name,
    ...(node.labels[ZONE_LABEL] !== undefined && { zone: node.labels[ZONE_LABEL] }),
    cordoned: node.unschedulable,
    ready: node.ready,
    ...(degraded.has(node.name) && { degradedRttMs: degraded.get(node.name)!.rttMs }),
    ...(node.labels['nvidia.com/gpu.product'] !== undefined && { gpu: node.labels['nvidia.com/gpu.product'] }),
  };
}

function policyRow(policy: SchedulingPolicy): PolicyRow {
  return {
    name: policy.name,
    ...(policy.source !== undefined && { source: policy.source.file }),
    priority: policy.priority,
    enforcement: policy.enforcement ?? 'Enforce',
    rolloutPercent: policy.rollout?.percent ?? 100,
    rules: Object.keys(policy.rules),
    onUnsatisfiable: policy.onUnsatisfiable,
  };
}

function sourceRow(source: SourceStatus, now: number): SourceRow {
  return {
    name: source.name,
    synced: source.synced,
    ...(source.disabled !== undefined && { disabled: source.disabled }),
    objects: source.objects,
    ...(source.updatedAt !== undefined && { ageSeconds: Math.max(0, Math.round((now - source.updatedAt) / 1000)) }),
  };
}

function emptyReasons(
  snapshot: TopologySnapshot,
  decisions: readonly RecentDecision[],
  history: History | undefined,
): EmptyReasons {
  const gpus = snapshot.nodes.withLabel('nvidia.com/gpu.product').size + snapshot.devices.size > 0;
  const reasons: Record<keyof EmptyReasons, string | undefined> = {
    links: whyNoLinks(snapshot),
    etcdLeader: whyNoLeader(snapshot),
    gpus: gpus ? undefined : 'nothing yet: no node has GPU Feature Discovery labels or GPUs in ResourceSlices',
    numa: whySource(snapshot, 'nodeResourceTopologies'),
    controlPlane: whySource(snapshot, 'controlPlanePods'),
    placements: whySource(snapshot, 'pods'),
    decisions: decisions.length > 0 ? undefined : 'nothing yet: no Pod has been decided since topogate started',
    trends:
      history === undefined
        ? 'no source: this view keeps no history'
        : history.pairs().length > 0 || history.events().length > 0
          ? undefined
          : (whyNoLinks(snapshot) ??
            (snapshot.network?.observedAt === undefined
              ? 'nothing yet: no NetworkTopology status with an observedAt dates a measurement, and no leader or degraded node has changed'
              : 'nothing yet: no measurement since this view started')),
  };
  return Object.fromEntries(Object.entries(reasons).filter(([, why]) => why !== undefined));
}

function zoneRows(nodes: readonly NodeInfo[], degraded: ReadonlyMap<string, unknown>): ZoneRow[] {
  const zones = new Map<
    string,
    { nodes: number; schedulable: number; cordoned: number; notReady: number; degraded: number }
  >();
  for (const node of nodes) {
    const name = node.labels[ZONE_LABEL] ?? '(no zone)';
    const row = zones.get(name) ?? { nodes: 0, schedulable: 0, cordoned: 0, notReady: 0, degraded: 0 };
    row.nodes++;
    if (node.unschedulable) row.cordoned++;
    if (!node.ready) row.notReady++;
    if (!node.unschedulable && node.ready) row.schedulable++;
    if (degraded.has(node.name)) row.degraded++;
    zones.set(name, row);
  }
  return [...zones].sort(([a], [b]) => a.localeCompare(b)).map(([name, row]) => ({ name, ...row }));
}

function networkView(snapshot: TopologySnapshot, now: number): NetworkView {
  const network = snapshot.network!;
  const domains = [...snapshot.nodes.labelValues(network.domainLabel).keys()].sort();
  const cells = domains.map((from) =>
    domains.map((to): LinkCell => {
      const rttMs = from === to ? network.zoneRttMs(from) : network.rttMs(from, to);
      const bandwidthGbps = from === to ? undefined : network.bandwidthGbps(from, to);
      const source =
        from === to && rttMs === undefined
          ? 'self'
          : rttMs === undefined
            ? 'unknown'
            : network.measured(from, to)
              ? 'measured'
              : 'declared';
      return { ...(rttMs !== undefined && { rttMs }), source, ...(bandwidthGbps !== undefined && { bandwidthGbps }) };
    }),
  );
  return {
    domainLabel: network.domainLabel,
    domains,
    ...(network.observedAt !== undefined && { ageSeconds: Math.max(0, Math.round((now - network.observedAt) / 1000)) }),
    cells,
  };
}

function gpuRows(snapshot: TopologySnapshot): GpuRow[] {
  const rows = new Map<
    string,
    { source: GpuRow['source']; product: string; nodes: number; gpus: number; memoryMiB?: number }
  >();
  const add = (source: GpuRow['source'], product: string, gpus: number, memoryMiB: number | undefined) => {
    const key = `${source}\u0000${product}`;
    const row = rows.get(key) ?? { source, product, nodes: 0, gpus: 0, ...(memoryMiB !== undefined && { memoryMiB }) };
    row.nodes++;
    row.gpus += gpus;
    rows.set(key, row);
  };
  for (const slot of snapshot.nodes.withLabel('nvidia.com/gpu.product').slots()) {
    const labels = snapshot.nodes.bySlot(slot)!.labels;
    const memory = Number(labels['nvidia.com/gpu.memory']);
    add(
      'GPU Feature Discovery labels',
      labels['nvidia.com/gpu.product']!,
      Number(labels['nvidia.com/gpu.count'] ?? 0) || 0,
      Number.isFinite(memory) && memory > 0 ? memory : undefined,
    );
  }
  for (const devices of snapshot.devices.values()) {
    const byProduct = new Map<string, { count: number; memoryMiB?: number }>();
    for (const device of devices) {
      if (device.productName === undefined) continue;
      const entry = byProduct.get(device.productName) ?? {
        count: 0,
        ...(device.memoryMiB !== undefined && { memoryMiB: device.memoryMiB }),
      };
      entry.count++;
      byProduct.set(device.productName, entry);
    }
    for (const [product, entry] of byProduct) add('ResourceSlices', product, entry.count, entry.memoryMiB);
  }
  return [...rows.values()].sort((a, b) => a.product.localeCompare(b.product) || a.source.localeCompare(b.source));
}

function numaRows(snapshot: TopologySnapshot): ViewData['numa'] {
  const rows: NumaRow[] = [];
  for (const topology of snapshot.nodeTopologies.values())
    for (const zone of topology.zones)
      rows.push({
        node: topology.nodeName,
        zone: zone.name,
        cpu: (zone.available['cpu'] ?? 0) / 1000,
        memoryGiB: Math.round(((zone.available['memory'] ?? 0) / 1000 / 2 ** 30) * 10) / 10,
      });
  rows.sort((a, b) => a.node.localeCompare(b.node) || a.zone.localeCompare(b.zone));
  return { total: rows.length, listed: rows.slice(0, listCap) };
}
