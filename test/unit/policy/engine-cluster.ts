// A small cluster for engine tests, as the Kubernetes objects the topology
// builder reads: three zones, GPU nodes, NUMA cells, a measured network, an
// etcd leader, and nodes that are cordoned, NotReady or tainted.

import type { KubeObject, Pod, Taint } from '../../../src/kube/types.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import type { Decision, DecisionOptions, PolicyRules, SchedulingPolicy } from '../../../src/policy/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { networkTopology } from '../../fixtures/network-topology.ts';

export const NOW = Date.parse('2026-12-02T12:00:00Z');
export const OPTIONS: DecisionOptions = { now: NOW, maxSourceAgeMs: 10 * 60_000 };

interface NodeOptions {
  readonly taints?: readonly Taint[];
  readonly unschedulable?: boolean;
  readonly notReady?: boolean;
}

export function node(name: string, labels: Record<string, string>, options: NodeOptions = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
    spec: {
      ...(options.unschedulable ? { unschedulable: true } : {}),
      ...(options.taints ? { taints: options.taints } : {}),
    },
    status: {
      allocatable: { cpu: '32', memory: '128Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: options.notReady ? 'False' : 'True' }],
    },
  };
}

const zone = (name: string) => ({ 'topology.kubernetes.io/zone': name });
const gpu = (product: string, memoryMiB: number, count: number) => ({
  'nvidia.com/gpu.product': product,
  'nvidia.com/gpu.memory': String(memoryMiB),
  'nvidia.com/gpu.count': String(count),
});

function numaTopology(nodeName: string, cells: readonly { cpu: string; memory: string }[]): KubeObject {
  return {
    apiVersion: 'topology.node.k8s.io/v1alpha2',
    kind: 'NodeResourceTopology',
    metadata: { name: nodeName },
    attributes: [{ name: 'topologyManagerPolicy', value: 'single-numa-node' }],
    zones: cells.map((cell, index) => ({
      name: `node-${index}`,
      type: 'Node',
      resources: [
        { name: 'cpu', capacity: cell.cpu, allocatable: cell.cpu, available: cell.cpu },
        { name: 'memory', capacity: cell.memory, allocatable: cell.memory, available: cell.memory },
      ],
    })),
  };
}

/** Schedulable: a-gpu, a-cpu, b-gpu, b-cpu. Not: b-cordoned, c-tainted (dedicated=infra), c-notready. */
export function clusterObjects(observedAt = NOW - 60_000): KubeObject[] {
  return [
    node('a-gpu', { ...zone('zone-a'), ...gpu('NVIDIA-H100-80GB-HBM3', 81559, 8), disk: 'nvme' }),
    node('a-cpu', { ...zone('zone-a'), disk: 'ssd' }),
    node('b-gpu', { ...zone('zone-b'), ...gpu('NVIDIA-A100-SXM4-40GB', 40960, 4) }),
    node('b-cpu', { ...zone('zone-b'), disk: 'nvme' }),
    node('b-cordoned', zone('zone-b'), { unschedulable: true }),
    node('c-tainted', zone('zone-c'), { taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }] }),
    node('c-notready', zone('zone-c'), { notReady: true }),
    numaTopology('a-cpu', [
      { cpu: '4', memory: '8Gi' },
      { cpu: '16', memory: '64Gi' },
    ]),
    numaTopology('b-cpu', [
      { cpu: '8', memory: '16Gi' },
      { cpu: '8', memory: '16Gi' },
    ]),
    networkTopology({
      domainLabel: 'topology.kubernetes.io/zone',
      links: [
        { from: 'zone-a', to: 'zone-b', rttMs: 0.9 },
        { from: 'zone-a', to: 'zone-c', rttMs: 1.4 },
        { from: 'zone-b', to: 'zone-c', rttMs: 2.5 },
      ],
      status: { observedAt: new Date(observedAt).toISOString() },
    }),
    {
      apiVersion: 'topogate.dev/v1alpha1',
      kind: 'EtcdCluster',
      metadata: { name: 'etcd' },
      status: { members: [{ name: 'etcd-0', nodeName: 'c-tainted', isLeader: true, peerRttMs: {} }] },
    },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ml', labels: { team: 'ml' } } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'web', labels: { team: 'web' } } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'postgres-x1', namespace: 'db', labels: { 'kubernetes.io/service-name': 'postgres' } },
      endpoints: [{ addresses: ['10.0.0.1'], zone: 'zone-b', conditions: { ready: true } }],
    },
  ];
}

export function policy(name: string, rules: PolicyRules, extra: Partial<SchedulingPolicy> = {}): SchedulingPolicy {
  return { name, priority: 0, onUnsatisfiable: 'Warn', rules, ...extra };
}

export function pod(spec: Pod['spec'] = {}, metadata: Pod['metadata'] = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'web' }, ...metadata },
    spec: { containers: [{ name: 'c', image: 'x' }], ...spec },
  };
}

export function decideIn(
  policies: readonly SchedulingPolicy[],
  target: Pod,
  namespace = 'default',
  objects = clusterObjects(),
  options: Partial<DecisionOptions> = {},
): Decision {
  const snapshot = buildSnapshot(objects, { now: NOW });
  return decide(podRequest(target, namespace), compile(policies, snapshot), { ...OPTIONS, ...options });
}
