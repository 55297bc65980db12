// The cluster the placement benchmark schedules on, from a seed: three zones
// with a measured-looking NetworkTopology, CPU nodes of varying size and use,
// GPU nodes in racks with NUMA cells partly taken, and the control-plane node
// that holds the etcd leader. Pure: the shell creates what this describes.

import { NETWORK_TOPOLOGY } from '../../src/api/v1alpha1/networktopology.ts';
import { REGION_LABEL, ZONE_LABEL } from '../../src/kube/labels.ts';
import { random } from '../cluster.ts';
import type { FakeNode } from '../../test/e2e/harness/kube.ts';
import type { Network, NodeFacts } from './metrics.ts';

/** The fleet's levels, outermost first: ZONE, BLOCK (fabric.ts), RACK. */
export const ZONE = ZONE_LABEL;
export const RACK = 'topogate.dev/rack';
/** Every bench object carries it, and every bench Pod selects Nodes by it, so a shared cluster's other Nodes stay out. */
export const FLEET_LABEL = 'bench.topogate.dev/fleet';
export const FLEET = 'placement';
export const GPU_TAINT = 'nvidia.com/gpu';
export const ZONES = ['zone-a', 'zone-b', 'zone-c'] as const;

/**
 * Round trips and bandwidth between three zones of one region, of the size public inter-AZ
 * measurements report (0.5-1.5 ms between zones, about 0.1 ms inside one).
 */
export const NETWORK_LINKS = [
  { from: 'zone-a', to: 'zone-b', rttMs: 0.55, bandwidthGbps: 25 },
  { from: 'zone-a', to: 'zone-c', rttMs: 1.3, bandwidthGbps: 12.5 },
  { from: 'zone-b', to: 'zone-c', rttMs: 0.9, bandwidthGbps: 25 },
] as const;
export const INTRA_ZONE_RTT_MS = 0.1;
export const network: Network = { links: NETWORK_LINKS, intraZoneRttMs: INTRA_ZONE_RTT_MS };

interface GpuKind {
  readonly product: string;
  readonly memoryMiB: number;
  readonly perCell: number;
}
const H100: GpuKind = { product: 'NVIDIA-H100-80GB-HBM3', memoryMiB: 81559, perCell: 4 };
const A100_40: GpuKind = { product: 'NVIDIA-A100-SXM4-40GB', memoryMiB: 40960, perCell: 4 };
const L4: GpuKind = { product: 'NVIDIA-L4', memoryMiB: 23034, perCell: 2 };
const CELL_CPU = 48;
const CELL_MEMORY_GI = 512;

/** A Pod bound by name (as a kubelet's static Pod would be), taking what other tenants use. */
export interface Occupant {
  readonly node: string;
  readonly cpuMilli: number;
  readonly memoryMi: number;
  readonly gpus: number;
}

export interface Fleet {
  readonly seed: number;
  readonly nodes: readonly FakeNode[];
  readonly nodeResourceTopologies: readonly object[];
  readonly networkTopology: object;
  readonly occupants: readonly Occupant[];
  readonly controlPlaneNode: string;
  readonly controlPlaneZone: string;
  /** What the metrics read of each Node, NUMA cells in milli-units. */
  readonly facts: ReadonlyMap<string, NodeFacts>;
}

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

/** The same seed always gives the same fleet; the node order is shuffled by it too. */
export function buildFleet(seed: number, cpuNodesPerZone = 3): Fleet {
  const rand = random(seed * 7919 + 1);
  const nodes: FakeNode[] = [];
  const nrts: object[] = [];
  const occupants: Occupant[] = [];
  const facts = new Map<string, NodeFacts>();
  const base = (zone: string, rack: string) => ({
    [ZONE]: zone,
    [REGION_LABEL]: 'region-1',
    [RACK]: rack,
    [FLEET_LABEL]: FLEET,
  });
  for (const zone of ZONES) {
    const letter = zone.slice(-1);
    for (let i = 0; i < cpuNodesPerZone; i++) {
      const name = `pl-cpu-${letter}${i}`;
      const cpu = pick(rand, [2, 4]);
      const rack = `${letter}-r${i % 2}`;
      nodes.push({ name, labels: base(zone, rack), allocatable: { cpu: String(cpu), memory: '16Gi' } });
      // Other tenants use 0-50 % of the node's cpu.
      const used = Math.round(rand() * 0.5 * cpu * 10) * 100;
      if (used > 0) occupants.push({ node: name, cpuMilli: used, memoryMi: 512, gpus: 0 });
      facts.set(name, { name, zone, rack });
    }
  }
  const gpuNodes: { name: string; zone: string; rack: string; kind: GpuKind }[] = [
    ...ZONES.flatMap((zone) =>
      [0, 1].map((i) => ({ name: `pl-h100-${zone.slice(-1)}${i}`, zone, rack: `${zone.slice(-1)}-gpu`, kind: H100 })),
    ),
    { name: 'pl-a100-c0', zone: 'zone-c', rack: 'c-gpu2', kind: A100_40 },
    { name: 'pl-l4-b0', zone: 'zone-b', rack: 'b-gpu2', kind: L4 },
  ];
  for (const gpu of gpuNodes) {
    const gpus = gpu.kind.perCell * 2;
    nodes.push({
      name: gpu.name,
      labels: {
        ...base(gpu.zone, gpu.rack),
        'nvidia.com/gpu.present': 'true',
        'nvidia.com/gpu.product': gpu.kind.product,
        'nvidia.com/gpu.count': String(gpus),
        'nvidia.com/gpu.memory': String(gpu.kind.memoryMiB),
      },
      allocatable: { cpu: String(CELL_CPU * 2), memory: `${CELL_MEMORY_GI * 2}Gi`, 'nvidia.com/gpu': String(gpus) },
      taints: [{ key: GPU_TAINT, value: 'present', effect: 'NoSchedule' }],
    });
    // Other jobs hold 0-3 GPUs of each cell (8 cpu each): a node may have GPUs free, but split across cells.
    const cells = [0, 1].map((index) => {
      const taken = Math.min(gpu.kind.perCell, Math.floor(rand() * 4));
      return { name: `node-${index}`, taken };
    });
    const takenGpus = cells.reduce((sum, c) => sum + c.taken, 0);
    if (takenGpus > 0)
      occupants.push({ node: gpu.name, cpuMilli: takenGpus * 8000, memoryMi: takenGpus * 32768, gpus: takenGpus });
    nrts.push({
      apiVersion: 'topology.node.k8s.io/v1alpha2',
      kind: 'NodeResourceTopology',
      metadata: { name: gpu.name, labels: { [FLEET_LABEL]: FLEET } },
      topologyPolicies: ['SingleNUMANodeContainerLevel'],
      attributes: [
        { name: 'topologyManagerPolicy', value: 'single-numa-node' },
        { name: 'topologyManagerScope', value: 'container' },
      ],
      zones: cells.map((cell) => ({
        name: cell.name,
        type: 'Node',
        resources: [
          resource('cpu', CELL_CPU, CELL_CPU - cell.taken * 8),
          resource('memory', `${CELL_MEMORY_GI}Gi`, `${CELL_MEMORY_GI - cell.taken * 32}Gi`),
          resource('nvidia.com/gpu', gpu.kind.perCell, gpu.kind.perCell - cell.taken),
        ],
      })),
    });
    facts.set(gpu.name, {
      name: gpu.name,
      zone: gpu.zone,
      rack: gpu.rack,
      gpuMemoryMiB: gpu.kind.memoryMiB,
      numaCells: cells.map((cell) => ({
        name: cell.name,
        available: {
          cpu: (CELL_CPU - cell.taken * 8) * 1000,
          memory: (CELL_MEMORY_GI - cell.taken * 32) * 2 ** 30 * 1000,
          'nvidia.com/gpu': (gpu.kind.perCell - cell.taken) * 1000,
        },
      })),
    });
  }
  // The etcd member listens on 127.0.0.1: the Node with that address holds it, and so its leader.
  const controlPlaneZone = ZONES[seed % ZONES.length]!;
  const controlPlaneNode = 'pl-control-plane';
  nodes.push({
    name: controlPlaneNode,
    labels: {
      ...base(controlPlaneZone, `${controlPlaneZone.slice(-1)}-cp`),
      'node-role.kubernetes.io/control-plane': '',
    },
    taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
    addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
  });
  facts.set(controlPlaneNode, { name: controlPlaneNode, zone: controlPlaneZone });
  return {
    seed,
    nodes: shuffle(rand, nodes),
    nodeResourceTopologies: nrts,
    networkTopology: {
      apiVersion: NETWORK_TOPOLOGY.apiVersion,
      kind: NETWORK_TOPOLOGY.kind,
      metadata: { name: 'default' },
      spec: { domainLabel: ZONE, links: NETWORK_LINKS.map((link) => ({ ...link })) },
    },
    occupants,
    controlPlaneNode,
    controlPlaneZone,
    facts,
  };
}

function resource(name: string, capacity: number | string, available: number | string) {
  return { name, capacity: String(capacity), allocatable: String(capacity), available: String(available) };
}

function shuffle<T>(rand: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
