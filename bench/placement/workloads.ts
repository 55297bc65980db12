// What each scenario asks of the cluster, for one seed and one mode: the
// Deployments (their Pods are what the scheduler places), the calls between
// them, what the GPU Pods need and which workloads are gangs. Pure.

import { random } from '../cluster.ts';
import type { ServiceGraph } from './graph.ts';
import { serviceEdges } from './graph.ts';
import { FLEET, FLEET_LABEL, GPU_TAINT } from './fleet.ts';
import type { Edge, GpuNeed } from './metrics.ts';
import { ZONE_PREFIX } from './metrics.ts';

export type Mode = 'default' | 'topogate';
export const MODES: readonly Mode[] = ['default', 'topogate'];
/** On every Deployment and Pod template, so one selector finds (and cleans up) everything a run made. */
export const RUN_LABEL = 'bench.topogate.dev/placement';

export interface ScenarioPlan {
  readonly name: string;
  readonly namespace: string;
  /** Created first; the bench publishes its zone as the Service's EndpointSlice before the rest. */
  readonly anchor?: object;
  readonly anchorService?: string;
  readonly deployments: readonly object[];
  readonly pods: number;
  readonly edges: readonly Edge[];
  readonly gpuNeeds: readonly GpuNeed[];
  readonly gangs: readonly string[];
}

export interface PlanOptions {
  readonly seed: number;
  readonly mode: Mode;
  readonly graph: ServiceGraph;
  /** Where the etcd leader runs, for the latency-critical clients' calls. */
  readonly controlPlaneZone: string;
  readonly quick: boolean;
}

export const namespaceOf = (scenario: string, mode: Mode) => `pl-${scenario}-${mode}`;

function deployment(
  namespace: string,
  name: string,
  replicas: number,
  pod: {
    requests: Record<string, string>;
    limits?: Record<string, string>;
    gpu?: boolean;
    annotations?: Record<string, string>;
  },
): object {
  const labels = { app: name, [RUN_LABEL]: 'true' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels, ...(pod.annotations ? { annotations: pod.annotations } : {}) },
        spec: {
          nodeSelector: { [FLEET_LABEL]: FLEET },
          ...(pod.gpu ? { tolerations: [{ key: GPU_TAINT, operator: 'Exists', effect: 'NoSchedule' }] } : {}),
          terminationGracePeriodSeconds: 0,
          containers: [
            {
              name: 'main',
              image: 'registry.k8s.io/pause:3.10',
              resources: { requests: pod.requests, ...(pod.limits ? { limits: pod.limits } : {}) },
            },
          ],
        },
      },
    },
  };
}

function boutique(name: string, short: string, options: PlanOptions, rand: () => number): ScenarioPlan {
  const namespace = namespaceOf(short, options.mode);
  const scaled = options.graph.services.map((service) => ({
    service,
    // Production runs more than the demo's one replica of each: 1-3 by seed; the state store and the load generator stay single.
    replicas:
      service.stateful || service.name === 'loadgenerator'
        ? service.replicas
        : service.replicas * (1 + Math.floor(rand() * (options.quick ? 2 : 3))),
  }));
  const anchor = scaled.find((s) => s.service.stateful)!;
  const make = (s: (typeof scaled)[number]) =>
    deployment(namespace, s.service.name, s.replicas, { requests: { ...s.service.requests } });
  return {
    name,
    namespace,
    anchor: make(anchor),
    anchorService: anchor.service.name,
    deployments: scaled.filter((s) => s !== anchor).map(make),
    pods: scaled.reduce((sum, s) => sum + s.replicas, 0),
    edges: serviceEdges(options.graph),
    gpuNeeds: [],
    gangs: [],
  };
}

/** Data-parallel training: 4 workers × 2 H100s, a ring all-reduce of about 2 GB/s out of each worker. */
export const GANG_SIZE = 4;
export const GANG_POD = {
  requests: { cpu: '16', memory: '128Gi', 'nvidia.com/gpu': '2' },
  limits: { cpu: '16', memory: '128Gi', 'nvidia.com/gpu': '2' },
};
export const GANG_BYTES_PER_SECOND_PER_WORKER = 2e9;
const GANG_CHUNK_BYTES = 2e8;

export const gangCount = (quick: boolean) => (quick ? 1 : 3);

function training(options: PlanOptions): ScenarioPlan {
  const namespace = namespaceOf('training', options.mode);
  const gangs = Array.from({ length: gangCount(options.quick) }, (_, i) => `gang-${i + 1}-s${options.seed}`);
  return {
    name: 'gpu-training',
    namespace,
    deployments: gangs.map((gang) =>
      deployment(namespace, gang, GANG_SIZE, {
        ...GANG_POD,
        gpu: true,
        annotations: { 'topogate.dev/replicas': String(GANG_SIZE) },
      }),
    ),
    pods: gangs.length * GANG_SIZE,
    edges: gangs.map((gang) => ({
      from: gang,
      to: gang,
      callsPerSecond: (GANG_SIZE * GANG_BYTES_PER_SECOND_PER_WORKER) / GANG_CHUNK_BYTES,
      bytesPerCall: GANG_CHUNK_BYTES,
    })),
    gpuNeeds: gangs.map((workload) => ({ workload, minGpuMemoryMiB: 80000 })),
    gangs,
  };
}

/** Operators that write to the API server all the time: each write waits on the etcd leader. */
const OPERATOR_WRITES_PER_SECOND = 20;
const OPERATOR_BYTES_PER_WRITE = 3000;

function operators(options: PlanOptions): ScenarioPlan {
  const namespace = namespaceOf('operators', options.mode);
  const names = Array.from({ length: options.quick ? 1 : 3 }, (_, i) => `operator-${i + 1}`);
  const replicas = 3;
  return {
    name: 'control-plane-clients',
    namespace,
    deployments: names.map((name) =>
      deployment(namespace, name, replicas, { requests: { cpu: '250m', memory: '256Mi' } }),
    ),
    pods: names.length * replicas,
    edges: names.map((name) => ({
      from: name,
      to: `${ZONE_PREFIX}${options.controlPlaneZone}`,
      callsPerSecond: OPERATOR_WRITES_PER_SECOND * replicas,
      bytesPerCall: OPERATOR_BYTES_PER_WRITE,
    })),
    gpuNeeds: [],
    gangs: [],
  };
}

/** Every scenario of one run; the seed varies the boutique's replica counts. */
export function planRun(options: PlanOptions): ScenarioPlan[] {
  const rand = random(options.seed * 104729 + 7);
  const plans = [boutique('online-boutique', 'boutique', options, rand), training(options), operators(options)];
  if (!options.quick) plans.splice(1, 0, boutique('online-boutique-zone-spread', 'boutique-ha', options, rand));
  return plans;
}
