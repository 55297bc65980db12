// What the peer comparison asks of the fabric, for one seed and one arm: other
// tenants' background Deployments, four tenants of the shop (its call graph,
// 2-3 replicas a service), then a seeded arrival of gangs (4-32 Pods of one
// GPU each, one rack required, one block preferred). Created in waves, a
// caller's wave before its callees' (as a rollout meets callers that run), and
// each gang after the last has settled. Each arm writes what its own docs ask
// for: nothing (default), PodGroups (upstream TAS), Kueue pod groups (Kueue
// TAS), the replica-count annotation (topogate).
// Pure.

import { random } from '../cluster.ts';
import type { ServiceGraph } from './graph.ts';
import { serviceEdges } from './graph.ts';
import { FLEET, FLEET_LABEL, GPU_TAINT, RACK } from './fleet.ts';
import type { Edge } from './metrics.ts';
import { RUN_LABEL } from './workloads.ts';
import { KUEUE_LOCAL_QUEUE, KUEUE_QUEUE_LABEL } from './kueue-queue.ts';

/** Every arm the results name, in the order the bench runs them, one after another on the same fabric. */
export const ARMS = ['default', 'upstreamTas', 'kueueTas', 'topogate'] as const;
export type ArmName = (typeof ARMS)[number];

export const SHOP_TENANTS = 4;
export const shopNamespace = (tenant: number) => `fx-shop-${tenant}`;
export const TRAIN_NAMESPACE = 'fx-train';
export const BACKGROUND_NAMESPACE = 'fx-bg';
export const FABRIC_NAMESPACES = [
  ...Array.from({ length: SHOP_TENANTS }, (_, i) => shopNamespace(i + 1)),
  TRAIN_NAMESPACE,
  BACKGROUND_NAMESPACE,
];
export const GANG_SIZES = [4, 4, 8, 8, 16, 32] as const;
/** The gangs of a trace ask for about this share of the GPUs. */
const GANG_GPU_SHARE = 0.6;
export const GANG_REQUEST = { cpu: '4', memory: '32Gi', 'nvidia.com/gpu': '1' };

/** A workload, named `namespace/name` in the metrics. */
export interface TraceWorkload {
  readonly namespace: string;
  readonly name: string;
  readonly replicas: number;
  readonly gang: boolean;
}

export interface Wave {
  readonly name: string;
  /** Created in order: a PodGroup before the Deployment whose Pods name it. */
  readonly objects: readonly object[];
  readonly pods: number;
}

export interface FabricTrace {
  readonly waves: readonly Wave[];
  readonly workloads: readonly TraceWorkload[];
  /** Between workloads `namespace/name`, at the graph's rate per tenant. */
  readonly edges: readonly Edge[];
}

export const workloadId = (namespace: string, name: string) => `${namespace}/${name}`;

interface PodShape {
  readonly requests: Readonly<Record<string, string>>;
  readonly limits?: Readonly<Record<string, string>>;
  readonly gpu?: boolean;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
  readonly spec?: Readonly<Record<string, unknown>>;
}

function podTemplate(name: string, pod: PodShape): { metadata: object; spec: object } {
  const labels = { app: name, [RUN_LABEL]: 'true', ...pod.labels };
  return {
    metadata: { labels, ...(pod.annotations ? { annotations: pod.annotations } : {}) },
    spec: {
      nodeSelector: { [FLEET_LABEL]: FLEET },
      ...(pod.gpu ? { tolerations: [{ key: GPU_TAINT, operator: 'Exists', effect: 'NoSchedule' }] } : {}),
      terminationGracePeriodSeconds: 0,
      ...pod.spec,
      containers: [
        {
          name: 'main',
          image: 'registry.k8s.io/pause:3.10',
          resources: { requests: pod.requests, ...(pod.limits ? { limits: pod.limits } : {}) },
        },
      ],
    },
  };
}

function deployment(namespace: string, name: string, replicas: number, pod: PodShape): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name, [RUN_LABEL]: 'true' } },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate(name, pod) },
  };
}

/** A gang's Pod: one GPU, on the GPU nodes. */
const gangPod: PodShape = {
  requests: GANG_REQUEST,
  limits: { 'nvidia.com/gpu': GANG_REQUEST['nvidia.com/gpu'] },
  gpu: true,
};

/**
 * A Kueue pod group, as Kueue documents it for plain Pods: its Pods, each with the queue, the group's name
 * and size, and the topology it requires. Kueue takes one of required and preferred; a rack lies in one
 * block, so requiring the rack says the block too.
 */
export function kueuePodGroup(name: string, size: number): object[] {
  const { metadata, spec } = podTemplate(name, {
    ...gangPod,
    labels: { [KUEUE_QUEUE_LABEL]: KUEUE_LOCAL_QUEUE, 'kueue.x-k8s.io/pod-group-name': name },
    annotations: {
      'kueue.x-k8s.io/pod-group-total-count': String(size),
      'kueue.x-k8s.io/podset-required-topology': RACK,
    },
  });
  return Array.from({ length: size }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...metadata, name: `${name}-${i + 1}`, namespace: TRAIN_NAMESPACE },
    spec,
  }));
}

/** Each service's depth from the graph's entry points: callers come a wave before their callees. */
export function callDepths(graph: ServiceGraph): Map<string, number> {
  const edges = serviceEdges(graph);
  const depth = new Map<string, number>();
  const called = new Set(edges.filter((e) => e.from !== e.to).map((e) => e.to));
  let frontier = graph.services.map((s) => s.name).filter((name) => !called.has(name));
  for (const name of frontier) depth.set(name, 0);
  for (let level = 1; frontier.length > 0 && level <= graph.services.length; level++) {
    const next = new Set<string>();
    for (const edge of edges)
      if (frontier.includes(edge.from) && !depth.has(edge.to) && edge.from !== edge.to) next.add(edge.to);
    for (const name of next) depth.set(name, level);
    frontier = [...next];
  }
  for (const service of graph.services) if (!depth.has(service.name)) depth.set(service.name, 0);
  return depth;
}

/** The gang sizes of a seed's trace: drawn until they ask for about 60 % of the GPUs free at the start. */
export function gangSizes(seed: number, freeGpus: number): number[] {
  const rand = random(seed * 7727 + 3);
  const sizes: number[] = [];
  let total = 0;
  while (total < GANG_GPU_SHARE * freeGpus) {
    const size = GANG_SIZES[Math.floor(rand() * GANG_SIZES.length)]!;
    sizes.push(size);
    total += size;
  }
  return sizes;
}

function gangObjects(arm: ArmName, name: string, size: number): object[] {
  switch (arm) {
    case 'default':
      return [deployment(TRAIN_NAMESPACE, name, size, gangPod)];
    case 'topogate':
      return [
        deployment(TRAIN_NAMESPACE, name, size, { ...gangPod, annotations: { 'topogate.dev/replicas': `${size}` } }),
      ];
    case 'kueueTas':
      return kueuePodGroup(name, size);
    case 'upstreamTas':
      // KEP-5732: a PodGroup with a gang policy and one topology key; the Pods name it.
      return [
        {
          apiVersion: 'scheduling.k8s.io/v1beta1',
          kind: 'PodGroup',
          metadata: { name, namespace: TRAIN_NAMESPACE, labels: { [RUN_LABEL]: 'true' } },
          spec: {
            schedulingPolicy: { gang: { minCount: size } },
            schedulingConstraints: { topology: [{ key: RACK }] },
          },
        },
        deployment(TRAIN_NAMESPACE, name, size, { ...gangPod, spec: { schedulingGroup: { podGroupName: name } } }),
      ];
  }
}

export function planTrace(seed: number, arm: ArmName, graph: ServiceGraph, freeGpus: number): FabricTrace {
  const rand = random(seed * 104723 + 5);
  const workloads: TraceWorkload[] = [];
  const waves: Wave[] = [];
  // Other tenants' services: 12 Deployments of 2-6 Pods, 0.5-2 cpu each.
  const background = Array.from({ length: 12 }, (_, i) => ({
    name: `bg-${i + 1}`,
    replicas: 2 + Math.floor(rand() * 5),
    cpu: `${500 * (1 + Math.floor(rand() * 4))}m`,
  }));
  waves.push({
    name: 'background',
    objects: background.map((b) =>
      deployment(BACKGROUND_NAMESPACE, b.name, b.replicas, { requests: { cpu: b.cpu, memory: '1Gi' } }),
    ),
    pods: background.reduce((sum, b) => sum + b.replicas, 0),
  });
  for (const b of background)
    workloads.push({ namespace: BACKGROUND_NAMESPACE, name: b.name, replicas: b.replicas, gang: false });

  const depths = callDepths(graph);
  const edges: Edge[] = [];
  const byDepth = new Map<number, { namespace: string; name: string; replicas: number; object: object }[]>();
  for (let tenant = 1; tenant <= SHOP_TENANTS; tenant++) {
    const namespace = shopNamespace(tenant);
    for (const service of graph.services) {
      const single = service.stateful || service.name === 'loadgenerator';
      const replicas = single ? 1 : 2 + Math.floor(rand() * 2);
      const object = deployment(namespace, service.name, replicas, { requests: service.requests });
      const depth = depths.get(service.name) ?? 0;
      byDepth.set(depth, [...(byDepth.get(depth) ?? []), { namespace, name: service.name, replicas, object }]);
      workloads.push({ namespace, name: service.name, replicas, gang: false });
    }
    for (const edge of serviceEdges(graph))
      edges.push({ ...edge, from: workloadId(namespace, edge.from), to: workloadId(namespace, edge.to) });
  }
  for (const depth of [...byDepth.keys()].sort((a, b) => a - b)) {
    const shops = byDepth.get(depth)!;
    waves.push({
      name: `shops, call depth ${depth}`,
      objects: shops.map((s) => s.object),
      pods: shops.reduce((sum, s) => sum + s.replicas, 0),
    });
  }
  gangSizes(seed, freeGpus).forEach((size, index) => {
    const name = `gang-${index + 1}`;
    waves.push({ name: `${name} (${size} Pods)`, objects: gangObjects(arm, name, size), pods: size });
    workloads.push({ namespace: TRAIN_NAMESPACE, name, replicas: size, gang: true });
  });
  return { waves, workloads, edges };
}
