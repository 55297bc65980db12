// One node as the view's map shows it: its GPUs (product, count, free), the
// control-plane components on it, and the whole record the page opens when a
// node is chosen; and the search over node names. Pure.

import { ZONE_LABEL } from '../kube/labels.ts';
import type { NodeInfo, Occupancy, TopologySnapshot } from '../topology/model.ts';
import type { ControlPlaneFigures } from './controlPlane.ts';

const gpuResource = 'nvidia.com/gpu';
const productLabel = 'nvidia.com/gpu.product';
const countLabel = 'nvidia.com/gpu.count';

export interface NodeGpus {
  readonly product?: string;
  readonly count: number;
  /** Allocatable less what bound Pods request; absent when the GPUs are DRA devices (claimed, not requested). */
  readonly free?: number;
}

/** The node's GPUs: the extended resource with GFD's product label, else its ResourceSlices' devices. */
export function gpuOf(node: NodeInfo, snapshot: TopologySnapshot, occupancy: Occupancy): NodeGpus | undefined {
  const product = node.labels[productLabel];
  const allocatable = Math.floor((node.allocatable[gpuResource] ?? 0) / 1000);
  const labelled = Number(node.labels[countLabel] ?? 0) || 0;
  const count = allocatable || labelled;
  if (count > 0) {
    const requested = Math.ceil((occupancy.requested(node.name)?.[gpuResource] ?? 0) / 1000);
    return { ...(product !== undefined && { product }), count, free: Math.max(0, count - requested) };
  }
  const devices = snapshot.devices.get(node.name)?.filter((device) => device.productName !== undefined) ?? [];
  if (devices.length === 0) return undefined;
  return { product: devices[0]!.productName!, count: devices.length };
}

/** Node → the control-plane components on it (etcd members by their node, the rest by their Pods). */
export function controlPlaneByNode(snapshot: TopologySnapshot): ReadonlyMap<string, readonly string[]> {
  const byNode = new Map<string, string[]>();
  const add = (node: string | undefined, component: string) => {
    if (node === undefined) return;
    const components = byNode.get(node) ?? [];
    if (!components.includes(component)) components.push(component);
    byNode.set(node, components);
  };
  for (const member of snapshot.etcd.members) add(member.nodeName, 'etcd');
  for (const pod of snapshot.controlPlane) add(pod.nodeName, pod.component);
  for (const components of byNode.values()) components.sort();
  return byNode;
}

export interface NumaCell {
  readonly name: string;
  readonly cpu: number;
  readonly memoryGiB: number;
}

export interface NodeRecord {
  readonly name: string;
  /** Zone, then the tiers' values, outermost first. */
  readonly path: readonly string[];
  readonly ready: boolean;
  readonly cordoned: boolean;
  readonly degraded?: { readonly rttMs: number; readonly zoneRttMs: number };
  readonly gpus?: NodeGpus;
  readonly numa: readonly NumaCell[];
  readonly labels: Readonly<Record<string, string>>;
  readonly controlPlane: readonly ComponentOnNode[];
  readonly etcdLeader: boolean;
}

export interface ComponentOnNode {
  readonly component: string;
  /** The latest measured figures that speak of it (ControlPlane status). */
  readonly figures: readonly { readonly figure: string; readonly valueMs: number }[];
  /** It holds its component's leader Lease (scheduler, controller manager). */
  readonly leader: boolean;
}

/** Which figures speak of a component on a node: by the figure's name, and for etcd by the member on the node. */
function figuresOf(component: string, etcdMember: string | undefined, figures: ControlPlaneFigures | undefined) {
  const prefix =
    component === 'etcd'
      ? etcdMember === undefined
        ? undefined
        : `etcd ${etcdMember} `
      : component === 'kube-apiserver'
        ? 'API server'
        : component === 'kube-scheduler'
          ? 'scheduler'
          : undefined;
  if (prefix === undefined || figures === undefined) return [];
  return figures.figures.filter(({ figure }) => figure.startsWith(prefix));
}

export function nodeRecord(
  snapshot: TopologySnapshot,
  occupancy: Occupancy,
  name: string,
  tiers: readonly string[],
  figures: ControlPlaneFigures | undefined,
): NodeRecord | undefined {
  const node = snapshot.nodes.get(name);
  if (!node) return undefined;
  const degraded = snapshot.network?.degradedNodes.get(name);
  const gpus = gpuOf(node, snapshot, occupancy);
  const etcdMember = snapshot.etcd.members.find((member) => member.nodeName === name)?.name;
  const leaders = new Set((figures?.leaders ?? []).filter((l) => l.node === name).map((l) => l.component));
  return {
    name,
    path: [ZONE_LABEL, ...tiers].map((label) => node.labels[label] ?? '(none)'),
    ready: node.ready,
    cordoned: node.unschedulable,
    ...(degraded && { degraded: { rttMs: degraded.rttMs, zoneRttMs: degraded.zoneRttMs } }),
    ...(gpus && { gpus }),
    numa: (snapshot.nodeTopologies.get(name)?.zones ?? []).map((zone) => ({
      name: zone.name,
      cpu: (zone.available['cpu'] ?? 0) / 1000,
      memoryGiB: Math.round(((zone.available['memory'] ?? 0) / 1000 / 2 ** 30) * 10) / 10,
    })),
    labels: node.labels,
    controlPlane: (controlPlaneByNode(snapshot).get(name) ?? []).map((component) => ({
      component,
      figures: figuresOf(component, etcdMember, figures),
      leader: leaders.has(component) || (component === 'etcd' && snapshot.etcd.leader?.nodeName === name),
    })),
    etcdLeader: snapshot.etcd.leader?.nodeName === name,
  };
}

/** Node names containing `query` (case-insensitive), at most `limit`, with their zone. */
export function searchNodes(
  snapshot: TopologySnapshot,
  query: string,
  limit = 20,
): { readonly matches: readonly { readonly name: string; readonly zone?: string }[]; readonly more: boolean } {
  const wanted = query.trim().toLowerCase().slice(0, 253);
  const matches: { name: string; zone?: string }[] = [];
  if (wanted === '') return { matches, more: false };
  for (const slot of snapshot.nodes.all().slots()) {
    const node = snapshot.nodes.bySlot(slot)!;
    if (!node.name.toLowerCase().includes(wanted)) continue;
    if (matches.length === limit) return { matches, more: true };
    const zone = node.labels[ZONE_LABEL];
    matches.push({ name: node.name, ...(zone !== undefined && { zone }) });
  }
  return { matches, more: false };
}
