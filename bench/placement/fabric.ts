// The fabric the peer comparison schedules on: two zones, each of two blocks
// (a spine each) of four CPU racks and two GPU racks, as Node API objects with
// no kubelet. A few CPU nodes carry the wrong zone label (moved, relabelled
// late): what the probe measures says so (status.degradedNodes), the labels
// do not. Pure: the shell creates what this describes.

import { NETWORK_TOPOLOGY } from '../../src/api/v1alpha1/networktopology.ts';
import { REGION_LABEL } from '../../src/kube/labels.ts';
import { random } from '../cluster.ts';
import type { FakeNode } from '../../test/e2e/harness/kube.ts';
import type { Occupant } from './fleet.ts';
import { FLEET, FLEET_LABEL, GPU_TAINT, RACK, ZONE } from './fleet.ts';

export const BLOCK = 'topogate.dev/block';
export const FABRIC_ZONES = ['zone-a', 'zone-b'] as const;
const BLOCKS_PER_ZONE = 2;
const CPU_RACKS_PER_BLOCK = 4;
const GPU_RACKS_PER_BLOCK = 2;
export const CPU_NODES_PER_RACK = 8;
export const GPU_NODES_PER_RACK = 4;
export const GPUS_PER_NODE = 8;
const CPU_NODE = { cpu: 16, memoryGi: 64 };
const GPU_NODE = { cpu: 96, memoryGi: 768 };
/** CPU nodes whose zone label names the other zone. */
export const MISLABELLED = 4;

/**
 * Round trips inside the fabric, by the nearest level two nodes share (public figures for a two-tier Clos:
 * a ToR hop, a spine hop, the zone's core), and between the two zones (an inter-AZ link).
 */
export const FABRIC_RTT_MS = { node: 0.03, rack: 0.06, block: 0.12, zone: 0.2, crossZone: 0.55 } as const;

/** Where a node really is; its labels may say otherwise. */
export interface Place {
  readonly zone: string;
  readonly block: string;
  readonly rack: string;
}

export interface FabricNode {
  readonly name: string;
  readonly gpu: boolean;
  readonly truth: Place;
  /** What its labels say. */
  readonly labelled: Place;
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly gpus: number;
}

export interface Fabric {
  readonly seed: number;
  readonly nodes: readonly FabricNode[];
  readonly fakeNodes: readonly FakeNode[];
  /** Other tenants' Pods, bound by name. */
  readonly tenants: readonly Occupant[];
  readonly byName: ReadonlyMap<string, FabricNode>;
  /** The NetworkTopology a probe would publish: declared links, and the mislabelled nodes as degraded. */
  readonly networkTopology: object;
  readonly networkStatus: object;
}

export function rttBetween(a: Place, b: Place, sameNode: boolean): number {
  if (sameNode) return FABRIC_RTT_MS.node;
  if (a.zone !== b.zone) return FABRIC_RTT_MS.crossZone;
  if (a.rack === b.rack) return FABRIC_RTT_MS.rack;
  return a.block === b.block ? FABRIC_RTT_MS.block : FABRIC_RTT_MS.zone;
}

/** The same seed always gives the same fabric: which nodes are mislabelled and what other tenants hold. */
export function buildFabric(seed: number): Fabric {
  const rand = random(seed * 15485863 + 11);
  const nodes: FabricNode[] = [];
  for (const zone of FABRIC_ZONES) {
    const z = zone.slice(-1);
    for (let b = 1; b <= BLOCKS_PER_ZONE; b++) {
      const block = `${z}${b}`;
      const racks = [
        ...Array.from({ length: CPU_RACKS_PER_BLOCK }, (_, r) => ({ rack: `${block}-r${r + 1}`, gpu: false })),
        ...Array.from({ length: GPU_RACKS_PER_BLOCK }, (_, r) => ({ rack: `${block}-g${r + 1}`, gpu: true })),
      ];
      for (const { rack, gpu } of racks)
        for (let n = 1; n <= (gpu ? GPU_NODES_PER_RACK : CPU_NODES_PER_RACK); n++) {
          const place = { zone, block, rack };
          const size = gpu ? GPU_NODE : CPU_NODE;
          nodes.push({
            name: `fx-${rack}-n${n}`,
            gpu,
            truth: place,
            labelled: place,
            cpuMilli: size.cpu * 1000,
            memoryBytes: size.memoryGi * 2 ** 30,
            gpus: gpu ? GPUS_PER_NODE : 0,
          });
        }
    }
  }
  // Nodes moved to the other zone whose labels were not: they keep a rack label of their old zone.
  const cpu = nodes.filter((node) => !node.gpu);
  const moved = new Set<string>();
  while (moved.size < MISLABELLED) moved.add(cpu[Math.floor(rand() * cpu.length)]!.name);
  const placed = nodes.map((node) => {
    if (!moved.has(node.name)) return node;
    const other = FABRIC_ZONES.find((zone) => zone !== node.truth.zone)!;
    const z = other.slice(-1);
    return { ...node, truth: { zone: other, block: `${z}1`, rack: `${z}1-r1` } };
  });
  const tenants: Occupant[] = [];
  for (const node of placed) {
    // Other tenants: 0-40 % of a CPU node; 0-3 GPUs on a third of the GPU nodes.
    if (!node.gpu) {
      const used = Math.round(rand() * 0.4 * (node.cpuMilli / 100)) * 100;
      if (used > 0) tenants.push({ node: node.name, cpuMilli: used, memoryMi: 1024, gpus: 0 });
    } else if (rand() < 1 / 3) {
      const gpus = 1 + Math.floor(rand() * 3);
      tenants.push({ node: node.name, cpuMilli: gpus * 4000, memoryMi: gpus * 32768, gpus });
    }
  }
  const fakeNodes = placed.map((node): FakeNode => ({
    name: node.name,
    labels: {
      [ZONE]: node.labelled.zone,
      [REGION_LABEL]: 'region-1',
      [BLOCK]: node.labelled.block,
      [RACK]: node.labelled.rack,
      [FLEET_LABEL]: FLEET,
      ...(node.gpu ? { 'nvidia.com/gpu.present': 'true', 'nvidia.com/gpu.count': String(GPUS_PER_NODE) } : {}),
    },
    allocatable: {
      cpu: String(node.cpuMilli / 1000),
      memory: `${node.memoryBytes / 2 ** 30}Gi`,
      pods: '110',
      ...(node.gpu ? { 'nvidia.com/gpu': String(GPUS_PER_NODE) } : {}),
    },
    ...(node.gpu ? { taints: [{ key: GPU_TAINT, value: 'present', effect: 'NoSchedule' }] } : {}),
  }));
  const link = { from: FABRIC_ZONES[0], to: FABRIC_ZONES[1], rttMs: FABRIC_RTT_MS.crossZone, bandwidthGbps: 25 };
  return {
    seed,
    nodes: placed,
    fakeNodes,
    tenants,
    byName: new Map(placed.map((node) => [node.name, node])),
    networkTopology: {
      apiVersion: NETWORK_TOPOLOGY.apiVersion,
      kind: NETWORK_TOPOLOGY.kind,
      metadata: { name: 'default' },
      spec: { domainLabel: ZONE, links: [link] },
    },
    networkStatus: probedStatus(placed, link),
  };
}

/**
 * What the probe would publish: a node's median RTT to the peers its label puts in its zone is the
 * cross-zone RTT for a moved node, over 3 × the zone's own, so it is degraded (docs/probe.md).
 */
function probedStatus(nodes: readonly FabricNode[], link: object): object {
  const zoneRtt = FABRIC_RTT_MS.zone;
  return {
    observedAt: new Date(0).toISOString(),
    links: [{ ...link, rttP99Ms: FABRIC_RTT_MS.crossZone * 1.5, samples: 1000 }],
    degradedNodes: nodes
      .filter((node) => node.truth.zone !== node.labelled.zone)
      .map((node) => ({ name: node.name, rttMs: FABRIC_RTT_MS.crossZone, zoneRttMs: zoneRtt })),
  };
}
