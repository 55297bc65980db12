// A small cluster for the view's tests: two zones with blocks and racks, a
// measured link and a declared one, a degraded node, a cordoned one, a GPU
// node with two GPUs requested, the etcd leader, and a Deployment's Pods.

import type { KubeObject } from '../../../src/kube/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import type { TopologySnapshot } from '../../../src/topology/model.ts';
import { networkTopology } from '../../fixtures/network-topology.ts';

export const NOW = Date.parse('2026-12-05T09:00:00Z');
const ZONE = 'topology.kubernetes.io/zone';

export function node(
  name: string,
  zone: string,
  labels: Record<string, string> = {},
  options: { unschedulable?: boolean; gpus?: number } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, [ZONE]: zone, ...labels } },
    spec: options.unschedulable ? { unschedulable: true } : {},
    status: {
      allocatable: {
        cpu: '32',
        memory: '128Gi',
        pods: '110',
        ...(options.gpus && { 'nvidia.com/gpu': String(options.gpus) }),
      },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

/** A Pod of Deployment shop/web (its ReplicaSet web-abc12), unbound. */
export function webPod(name: string, annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'shop',
      labels: { app: 'web', 'pod-template-hash': 'abc12' },
      annotations,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc12', controller: true, uid: 'u' }],
    },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  };
}

function boundPod(name: string, nodeName: string, gpus = 0): KubeObject {
  const pod = webPod(name);
  return {
    ...pod,
    spec: {
      nodeName,
      containers: [{ name: 'c', image: 'x', resources: { requests: gpus ? { 'nvidia.com/gpu': String(gpus) } : {} } }],
    },
    status: { phase: 'Running' },
  };
}

export function objects(observedAt = NOW - 5_000, rttAB = 0.4): KubeObject[] {
  const rack = (block: string, rack: string) => ({ 'topogate.dev/block': block, 'topogate.dev/rack': rack });
  return [
    node('a-1', 'a', rack('b1', 'r1')),
    node('a-2', 'a', rack('b1', 'r2')),
    node('a-3', 'a', rack('b2', 'r3'), { unschedulable: true }),
    node('b-1', 'b', { ...rack('b3', 'r4'), 'nvidia.com/gpu.product': 'NVIDIA-H100' }, { gpus: 4 }),
    node('c-1', 'c', rack('b4', 'r5')),
    networkTopology({
      domainLabel: ZONE,
      links: [{ from: 'a', to: 'c', rttMs: 3 }],
      status: {
        observedAt: new Date(observedAt).toISOString(),
        links: [{ from: 'a', to: 'b', rttMs: rttAB, rttP99Ms: 1.5, bandwidthGbps: 40, samples: 400 }],
        degradedNodes: [{ name: 'a-2', rttMs: 4.1, zoneRttMs: 0.2 }],
        mislabeled: [{ node: 'a-3', label: ZONE, value: 'a', measured: 'b' }],
      },
    }),
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'etcd-a-1', namespace: 'kube-system', labels: { tier: 'control-plane', component: 'etcd' } },
      spec: { nodeName: 'a-1', containers: [{ name: 'etcd', image: 'etcd' }] },
    },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { tier: 'frontend' } } },
    boundPod('web-abc12-1', 'a-1'),
    boundPod('web-abc12-2', 'a-1'),
    boundPod('web-abc12-3', 'b-1', 2),
  ];
}

export function snapshot(...args: Parameters<typeof objects>): TopologySnapshot {
  return buildSnapshot(objects(...args), { now: NOW });
}
