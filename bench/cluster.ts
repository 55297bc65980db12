// A synthetic cluster that looks like a real one to every source of the
// topology model: zones in two regions, CPU nodes and GPU nodes labelled by
// Node Feature Discovery and GPU Feature Discovery, a NodeResourceTopology
// per node, a measured NetworkTopology, EndpointSlices, an etcd cluster and
// its control-plane Pods. Seeded, so every run builds the same cluster.

import { ETCD_CLUSTER } from '../src/api/v1alpha1/etcdcluster.ts';
import { NETWORK_TOPOLOGY } from '../src/api/v1alpha1/networktopology.ts';
import { HOSTNAME_LABEL, REGION_LABEL, ZONE_LABEL } from '../src/kube/labels.ts';
import type { KubeObject } from '../src/kube/types.ts';

export const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-west-2a', 'us-west-2b', 'us-west-2c'] as const;

export interface ClusterShape {
  readonly nodes: number;
  /** Total endpoints across all EndpointSlices (100 per slice). */
  readonly endpoints: number;
}

interface GpuModel {
  readonly product: string;
  readonly memoryMiB: number;
  readonly count: number;
  readonly instanceType: string;
  readonly family: string;
}

const GPU_MODELS: readonly GpuModel[] = [
  { product: 'NVIDIA-H100-80GB-HBM3', memoryMiB: 81559, count: 8, instanceType: 'p5.48xlarge', family: 'hopper' },
  { product: 'NVIDIA-A100-SXM4-40GB', memoryMiB: 40960, count: 8, instanceType: 'p4d.24xlarge', family: 'ampere' },
  { product: 'Tesla-T4', memoryMiB: 15360, count: 4, instanceType: 'g4dn.12xlarge', family: 'turing' },
  { product: 'NVIDIA-L4', memoryMiB: 23034, count: 4, instanceType: 'g6.12xlarge', family: 'ada-lovelace' },
];

const CPU_TYPES = [
  { instanceType: 'm6i.4xlarge', cpu: 16, memoryGi: 64 },
  { instanceType: 'c6i.8xlarge', cpu: 32, memoryGi: 64 },
  { instanceType: 'r6i.4xlarge', cpu: 16, memoryGi: 128 },
] as const;

export const ENDPOINTS_PER_SLICE = 100;
export const CONTROL_PLANE_NODES = 3;

/** mulberry32: small, fast and good enough to vary a synthetic cluster. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function nodeName(index: number): string {
  return `ip-10-${(index >> 8) & 255}-${index & 255}-${index % 7}.ec2.internal`;
}

export function zoneOf(index: number): string {
  return ZONES[index % ZONES.length]!;
}

function gpuModelOf(index: number): GpuModel | undefined {
  // One node in seven carries GPUs (seven, not six, so that they fall in every zone); control-plane nodes never do.
  if (index < CONTROL_PLANE_NODES || index % 7 !== 5) return undefined;
  return GPU_MODELS[Math.floor(index / 7) % GPU_MODELS.length];
}

export function node(index: number, rand: () => number): KubeObject {
  const name = nodeName(index);
  const zone = zoneOf(index);
  const gpu = gpuModelOf(index);
  const cpuType = CPU_TYPES[index % CPU_TYPES.length]!;
  const cpu = gpu ? 96 : cpuType.cpu;
  const memoryGi = gpu ? 768 : cpuType.memoryGi;
  const controlPlane = index < CONTROL_PLANE_NODES;
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/os': 'linux',
    [HOSTNAME_LABEL]: name,
    'node.kubernetes.io/instance-type': gpu ? gpu.instanceType : cpuType.instanceType,
    [REGION_LABEL]: zone.slice(0, -1),
    [ZONE_LABEL]: zone,
    'feature.node.kubernetes.io/cpu-model.vendor_id': 'Intel',
    'feature.node.kubernetes.io/cpu-model.family': '6',
    'feature.node.kubernetes.io/cpu-cpuid.AVX512F': 'true',
    'feature.node.kubernetes.io/kernel-version.full': '6.1.112-124.190.amzn2023.x86_64',
    'feature.node.kubernetes.io/system-os_release.ID': 'amzn',
    'feature.node.kubernetes.io/memory-numa': 'true',
    'feature.node.kubernetes.io/storage-nonrotationaldisk': 'true',
    disk: index % 3 === 0 ? 'nvme' : 'ebs',
    'eks.amazonaws.com/nodegroup': gpu ? `gpu-${gpu.family}` : `general-${index % 4}`,
  };
  if (controlPlane) labels['node-role.kubernetes.io/control-plane'] = '';
  if (gpu) {
    Object.assign(labels, {
      'feature.node.kubernetes.io/pci-10de.present': 'true',
      'nvidia.com/gpu.present': 'true',
      'nvidia.com/gpu.product': gpu.product,
      'nvidia.com/gpu.count': String(gpu.count),
      'nvidia.com/gpu.memory': String(gpu.memoryMiB),
      'nvidia.com/gpu.family': gpu.family,
      'nvidia.com/gpu.machine': gpu.instanceType,
      'nvidia.com/cuda.driver.major': '550',
      'nvidia.com/cuda.driver.minor': '127',
      'nvidia.com/cuda.runtime.major': '12',
      'nvidia.com/mig.capable': String(gpu.product.includes('100')),
      'nvidia.com/gfd.timestamp': String(1764000000 + index),
    });
  }
  const taints = [
    ...(controlPlane ? [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] : []),
    ...(gpu ? [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] : []),
  ];
  const resources: Record<string, string> = {
    cpu: `${cpu * 1000 - 110}m`,
    memory: `${memoryGi * 1024 * 1024 - 1_500_000}Ki`,
    pods: '110',
    'ephemeral-storage': '95500736762',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
  };
  if (gpu) resources['nvidia.com/gpu'] = String(gpu.count);
  const ip = `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels,
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        'nfd.node.kubernetes.io/feature-labels': 'cpu-model.family,cpu-model.vendor_id,memory-numa,pci-10de.present',
      },
      uid: `0b1e${index.toString(16).padStart(8, '0')}-1c2d-4e5f-8a9b-${index.toString(16).padStart(12, '0')}`,
      resourceVersion: String(100000 + index),
    },
    spec: {
      providerID: `aws:///${zone}/i-0${index.toString(16).padStart(16, '0')}`,
      ...(index % 97 === 13 ? { unschedulable: true } : {}),
      ...(taints.length > 0 ? { taints } : {}),
    },
    status: {
      capacity: { ...resources, cpu: String(cpu), memory: `${memoryGi * 1024 * 1024}Ki` },
      allocatable: resources,
      conditions: [
        { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory' },
        { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure' },
        { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID' },
        { type: 'Ready', status: rand() < 0.005 ? 'False' : 'True', reason: 'KubeletReady' },
      ],
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'InternalDNS', address: name },
        { type: 'Hostname', address: name },
      ],
      nodeInfo: {
        architecture: 'amd64',
        containerRuntimeVersion: 'containerd://1.7.22',
        kernelVersion: '6.1.112-124.190.amzn2023.x86_64',
        kubeletVersion: 'v1.34.1-eks-1234567',
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023.6.20241031',
      },
    },
  };
}

/** A running Pod of `owner`'s ReplicaSet, bound to `node`, asking for `cpu` and 4Gi of memory. */
export function boundPod(name: string, node: string, owner: string, cpu: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'apps',
      labels: { 'pod-template-hash': 'h1' },
      ownerReferences: [{ kind: 'ReplicaSet', name: `${owner}-h1`, controller: true, uid: owner }],
    },
    spec: { nodeName: node, containers: [{ name: 'c', resources: { requests: { cpu, memory: '4Gi' } } }] },
    status: { phase: 'Running' },
  };
}

/** NUMA cells with some of each already taken, as nfd-topology-updater reports them. */
export function nodeResourceTopology(index: number, rand: () => number): KubeObject {
  const gpu = gpuModelOf(index);
  const cells = gpu ? 2 : index % 2 === 0 ? 2 : 1;
  const cpuPerCell = (gpu ? 96 : CPU_TYPES[index % CPU_TYPES.length]!.cpu) / cells;
  const memoryGiPerCell = (gpu ? 768 : CPU_TYPES[index % CPU_TYPES.length]!.memoryGi) / cells;
  const zones = Array.from({ length: cells }, (_, cell) => {
    const usedCpu = Math.floor(rand() * cpuPerCell * 0.8);
    const usedMemoryGi = Math.floor(rand() * memoryGiPerCell * 0.7);
    const resources = [
      {
        name: 'cpu',
        capacity: String(cpuPerCell),
        allocatable: String(cpuPerCell - 1),
        available: String(cpuPerCell - 1 - usedCpu),
      },
      {
        name: 'memory',
        capacity: `${memoryGiPerCell}Gi`,
        allocatable: `${memoryGiPerCell - 1}Gi`,
        available: `${memoryGiPerCell - 1 - usedMemoryGi}Gi`,
      },
    ];
    if (gpu) {
      const perCell = gpu.count / cells;
      resources.push({
        name: 'nvidia.com/gpu',
        capacity: String(perCell),
        allocatable: String(perCell),
        available: String(perCell - Math.floor(rand() * perCell)),
      });
    }
    return {
      name: `node-${cell}`,
      type: 'Node',
      costs: Array.from({ length: cells }, (_, other) => ({ name: `node-${other}`, value: other === cell ? 10 : 21 })),
      resources,
    };
  });
  return {
    apiVersion: 'topology.node.k8s.io/v1alpha2',
    kind: 'NodeResourceTopology',
    metadata: { name: nodeName(index), resourceVersion: String(200000 + index) },
    attributes: [
      { name: 'topologyManagerPolicy', value: 'single-numa-node' },
      { name: 'topologyManagerScope', value: 'container' },
      { name: 'nodeTopologyPodsFingerprint', value: `pfp0v001${index.toString(16).padStart(16, '0')}` },
    ],
    topologyPolicies: ['SingleNUMANodeContainerLevel'],
    zones,
  };
}

export function networkTopology(observedAt: number): KubeObject {
  const links = [];
  for (let a = 0; a < ZONES.length; a++) {
    for (let b = a + 1; b < ZONES.length; b++) {
      const from = ZONES[a]!;
      const to = ZONES[b]!;
      const sameRegion = from.slice(0, -1) === to.slice(0, -1);
      links.push({ from, to, rttMs: sameRegion ? 0.6 + 0.4 * (b - a) : 62 + a, bandwidthGbps: sameRegion ? 25 : 5 });
    }
  }
  return {
    apiVersion: NETWORK_TOPOLOGY.apiVersion,
    kind: NETWORK_TOPOLOGY.kind,
    metadata: { name: 'default' },
    spec: { domainLabel: ZONE_LABEL, links },
    status: { observedAt: new Date(observedAt).toISOString() },
  };
}

export function namespaces(): KubeObject[] {
  const names: [string, Record<string, string>][] = [
    ['default', {}],
    ['kube-system', {}],
    ['ml-training', { team: 'ml', tier: 'gpu' }],
    ['ml-research', { team: 'ml', tier: 'gpu' }],
    ['ml-sandbox', { team: 'ml' }],
    ['payments', { team: 'payments', tier: 'critical' }],
    ['web', { team: 'web' }],
    ['batch', { team: 'data' }],
  ];
  for (let team = 0; team < 40; team++) names.push([`team-${team}`, { team: `team-${team}` }]);
  return names.map(([name, labels]) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } },
  }));
}

export function serviceName(index: number): string {
  return `svc-${index}`;
}

/** Slice `index` of the cluster's services: one Service per 2 slices, endpoints spread over the nodes. */
export function endpointSlice(index: number, nodes: number, generation = 0): KubeObject {
  const service = serviceName(index >> 1);
  const namespace = index % 5 === 0 ? 'payments' : `team-${index % 40}`;
  const endpoints = Array.from({ length: ENDPOINTS_PER_SLICE }, (_, e) => {
    const nodeIndex = (index * 7919 + e * 104729) % nodes;
    return {
      addresses: [`100.64.${(index >> 2) & 255}.${((index & 3) << 6) | (e & 63)}`],
      conditions: { ready: (e + generation) % 50 !== 0, serving: true, terminating: false },
      nodeName: nodeName(nodeIndex),
      zone: zoneOf(nodeIndex),
      targetRef: { kind: 'Pod', namespace, name: `${service}-7d9f8b6c4-${e.toString(36).padStart(5, 'x')}` },
    };
  });
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${service}-${index.toString(36).padStart(5, 'q')}`,
      namespace,
      labels: {
        'kubernetes.io/service-name': service,
        'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      },
      resourceVersion: String(300000 + index + generation),
    },
    addressType: 'IPv4',
    endpoints,
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  };
}

export function controlPlane(): KubeObject[] {
  const pods: KubeObject[] = [];
  for (let index = 0; index < CONTROL_PLANE_NODES; index++) {
    for (const component of ['etcd', 'kube-apiserver', 'kube-scheduler', 'kube-controller-manager']) {
      pods.push({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `${component}-${nodeName(index)}`,
          namespace: 'kube-system',
          labels: { component, tier: 'control-plane' },
        },
        spec: {
          nodeName: nodeName(index),
          containers: [{ name: component, image: `registry.k8s.io/${component}:v1.34.1` }],
        },
        status: { phase: 'Running' },
      });
    }
  }
  pods.push({
    apiVersion: ETCD_CLUSTER.apiVersion,
    kind: ETCD_CLUSTER.kind,
    metadata: { name: 'etcd' },
    status: {
      members: Array.from({ length: CONTROL_PLANE_NODES }, (_, index) => ({
        name: nodeName(index),
        nodeName: nodeName(index),
        isLeader: index === 1,
        peerRttMs: Object.fromEntries(
          Array.from({ length: CONTROL_PLANE_NODES }, (_, other) => other)
            .filter((other) => other !== index)
            .map((other) => [nodeName(other), 0.7 + 0.3 * Math.abs(other - index)]),
        ),
      })),
    },
  });
  return pods;
}

/** Every object of the cluster, in the order a list of each kind would give them. */
export function cluster(shape: ClusterShape, observedAt: number): KubeObject[] {
  const rand = random(shape.nodes);
  const objects: KubeObject[] = [...namespaces()];
  for (let i = 0; i < shape.nodes; i++) objects.push(node(i, rand));
  for (let i = 0; i < shape.nodes; i++) objects.push(nodeResourceTopology(i, rand));
  for (let i = 0; i < Math.ceil(shape.endpoints / ENDPOINTS_PER_SLICE); i++)
    objects.push(endpointSlice(i, shape.nodes));
  objects.push(networkTopology(observedAt), ...controlPlane());
  return objects;
}
