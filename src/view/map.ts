// The map the view draws: zones, then the tiers below them (derived by
// `discover` as topogate.dev/tier-N labels, else the labelled blocks and
// racks), then nodes, each region with its counts so that the page can size
// it by node count; and the links between zones, measured apart from declared.
// Above `nodeCap` nodes the regions are aggregated: only the nodes an operator
// must see (degraded, not schedulable, control plane) are listed. Pure.

import { ZONE_LABEL } from '../kube/labels.ts';
import type { NodeInfo, Occupancy, TopologySnapshot } from '../topology/model.ts';
import { controlPlaneByNode, gpuOf, type NodeGpus } from './nodes.ts';

/** Labelled tiers, outermost first, when `discover` derived none. */
export const labelledTiers = ['topogate.dev/block', 'topogate.dev/rack'] as const;
/** `discover` numbers its tiers from 1 (the finest) up; a cluster has a few. */
const derivedTier = (tier: number) => `topogate.dev/tier-${tier}`;
const maxDerivedTiers = 8;
/** Nodes drawn one by one at most; above, regions are aggregated. */
export const nodeCap = 400;
/** Nodes listed in an aggregated map at most (the notable ones). */
export const notableCap = 200;
const noValue = '(none)';

export type NodeState = 'schedulable' | 'cordoned' | 'not ready';

export interface MapNode {
  readonly name: string;
  readonly state: NodeState;
  readonly degradedRttMs?: number;
  /** Its zone label disagrees with the group it measures into (NetworkTopology status.mislabeled). */
  readonly mislabeled?: { readonly label: string; readonly value: string; readonly measured: string };
  readonly gpus?: NodeGpus;
  /** NUMA cells from the node's NodeResourceTopology. */
  readonly numaCells?: number;
  /** Control-plane components running on the node (etcd, kube-apiserver, …). */
  readonly controlPlane?: readonly string[];
  readonly etcdLeader?: true;
}

export interface RegionCounts {
  readonly nodes: number;
  readonly schedulable: number;
  readonly cordoned: number;
  readonly notReady: number;
  readonly degraded: number;
  readonly gpus: number;
  readonly gpusFree: number;
}

export interface Region {
  readonly name: string;
  readonly counts: RegionCounts;
  /** The next tier's regions; absent below the last tier. */
  readonly regions?: readonly Region[];
  /** Below the last tier: its nodes (all, or the notable ones when aggregated). */
  readonly nodes?: readonly MapNode[];
}

export interface ZoneLink {
  readonly from: string;
  readonly to: string;
  readonly source: 'measured' | 'declared';
  readonly p50Ms: number;
  /** Measured links only: a declared figure has no percentile. */
  readonly p99Ms?: number;
  readonly bandwidthGbps?: number;
}

export interface TopologyMap {
  /** Node labels of the tiers between zone and node, outermost first. */
  readonly tiers: readonly string[];
  readonly tierSource: 'derived' | 'labels' | 'none';
  readonly aggregated: boolean;
  readonly zones: readonly Region[];
  /** The NetworkTopology's domains (its domainLabel's values) and the links between them, each pair once. */
  readonly network?: {
    readonly domainLabel: string;
    readonly domains: readonly string[];
    readonly links: readonly ZoneLink[];
    /** Seconds since status.observedAt; absent when nothing is measured. */
    readonly ageSeconds?: number;
  };
}

/** The tiers the nodes carry: `discover`'s derived ones (coarsest first) when present, else blocks and racks. */
export function tiersOf(snapshot: TopologySnapshot): { tiers: string[]; source: TopologyMap['tierSource'] } {
  const carried = (label: string) => snapshot.nodes.withLabel(label).size > 0;
  const derived = Array.from({ length: maxDerivedTiers }, (_, index) => derivedTier(maxDerivedTiers - index));
  if (derived.some(carried)) return { tiers: derived.filter(carried), source: 'derived' };
  const labelled = labelledTiers.filter(carried);
  return { tiers: labelled, source: labelled.length > 0 ? 'labels' : 'none' };
}

export function topologyMap(snapshot: TopologySnapshot, occupancy: Occupancy, now: number): TopologyMap {
  const { tiers, source } = tiersOf(snapshot);
  const nodes = [...snapshot.nodes.all().slots()].map((slot) => snapshot.nodes.bySlot(slot)!);
  const aggregated = nodes.length > nodeCap;
  const components = controlPlaneByNode(snapshot);
  const degraded = snapshot.network?.degradedNodes;
  const mislabeled = snapshot.network?.mislabeled;
  const leader = snapshot.etcd.leader?.nodeName;
  let notable = 0;
  const mapNode = (node: NodeInfo): MapNode | undefined => {
    const state: NodeState = !node.ready ? 'not ready' : node.unschedulable ? 'cordoned' : 'schedulable';
    const degradedRttMs = degraded?.get(node.name)?.rttMs;
    const wrongLabel = mislabeled?.get(node.name);
    const controlPlane = components.get(node.name);
    const ordinary = state === 'schedulable' && !degradedRttMs && !wrongLabel && !controlPlane;
    if (aggregated && (notable >= notableCap || ordinary)) return undefined;
    notable++;
    const gpus = gpuOf(node, snapshot, occupancy);
    const numaCells = snapshot.nodeTopologies.get(node.name)?.zones.length;
    return {
      name: node.name,
      state,
      ...(degradedRttMs !== undefined && { degradedRttMs }),
      ...(wrongLabel && {
        mislabeled: { label: wrongLabel.label, value: wrongLabel.value, measured: wrongLabel.measured },
      }),
      ...(gpus !== undefined && { gpus }),
      ...(numaCells !== undefined && { numaCells }),
      ...(controlPlane !== undefined && { controlPlane }),
      ...(leader === node.name && { etcdLeader: true as const }),
    };
  };
  const region = (name: string, members: readonly NodeInfo[], depth: number): Region => {
    const counts = countsOf(members, snapshot, occupancy);
    if (depth === tiers.length) {
      const listed = members.flatMap((node) => mapNode(node) ?? []);
      return { name, counts, nodes: listed };
    }
    return { name, counts, regions: groups(members, tiers[depth]!).map(([value, of]) => region(value, of, depth + 1)) };
  };
  return {
    tiers,
    tierSource: source,
    aggregated,
    zones: groups(nodes, ZONE_LABEL).map(([zone, members]) => region(zone, members, 0)),
    ...(snapshot.network && { network: networkOf(snapshot, now) }),
  };
}

function groups(nodes: readonly NodeInfo[], label: string): [string, NodeInfo[]][] {
  const byValue = new Map<string, NodeInfo[]>();
  for (const node of nodes) {
    const value = node.labels[label] ?? noValue;
    const members = byValue.get(value);
    if (members) members.push(node);
    else byValue.set(value, [node]);
  }
  return [...byValue].sort(([a], [b]) => (a === noValue ? 1 : b === noValue ? -1 : a.localeCompare(b)));
}

function countsOf(nodes: readonly NodeInfo[], snapshot: TopologySnapshot, occupancy: Occupancy): RegionCounts {
  let schedulable = 0;
  let cordoned = 0;
  let notReady = 0;
  let degraded = 0;
  let gpus = 0;
  let gpusFree = 0;
  for (const node of nodes) {
    if (!node.ready) notReady++;
    else if (node.unschedulable) cordoned++;
    else schedulable++;
    if (snapshot.network?.degradedNodes.has(node.name)) degraded++;
    const gpu = gpuOf(node, snapshot, occupancy);
    gpus += gpu?.count ?? 0;
    gpusFree += gpu?.free ?? 0;
  }
  return { nodes: nodes.length, schedulable, cordoned, notReady, degraded, gpus, gpusFree };
}

function networkOf(snapshot: TopologySnapshot, now: number): NonNullable<TopologyMap['network']> {
  const network = snapshot.network!;
  const domains = [...snapshot.nodes.labelValues(network.domainLabel).keys()].sort();
  const links: ZoneLink[] = [];
  domains.forEach((from, i) =>
    domains.slice(i + 1).forEach((to) => {
      const p50Ms = network.rttMs(from, to, 'p50');
      if (p50Ms === undefined) return;
      const measured = network.measured(from, to);
      const p99Ms = measured ? network.rttMs(from, to, 'p99') : undefined;
      const bandwidthGbps = network.bandwidthGbps(from, to);
      links.push({
        from,
        to,
        source: measured ? 'measured' : 'declared',
        p50Ms,
        ...(p99Ms !== undefined && { p99Ms }),
        ...(bandwidthGbps !== undefined && { bandwidthGbps }),
      });
    }),
  );
  return {
    domainLabel: network.domainLabel,
    domains,
    links,
    ...(network.observedAt !== undefined && { ageSeconds: Math.max(0, Math.round((now - network.observedAt) / 1000)) }),
  };
}
