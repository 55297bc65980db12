// The rules from measured data and DRA at 1,000 and 10,000 nodes: does a
// decision cost the same whatever the node count? Pack (racks of 40 nodes,
// bound Pods on every node), bandwidth and latency (p99, degraded nodes) to a
// Service, and a gpu rule met by ResourceSlices, decided for Pods of new
// workloads (each one a first decision) and for replicas (the memo).
//   node --expose-gc bench/rules.ts [--quick]

import { compile } from '../src/policy/compiler.ts';
import { decide } from '../src/policy/engine.ts';
import type { SchedulingPolicy } from '../src/policy/types.ts';
import type { KubeObject, Pod } from '../src/kube/types.ts';
import { buildSnapshot } from '../src/topology/build.ts';
import { cluster, networkTopology, serviceName } from './cluster.ts';
import { collectGarbage } from './gc.ts';
import { percentiles, type Percentiles } from './stats.ts';
import { podRequest } from '../src/kube/podFacts.ts';

const NOW = Date.parse('2026-12-02T12:00:00Z');
const ZONE = 'topology.kubernetes.io/zone';
const BLOCK = 'topogate.dev/block';
const RACK = 'topogate.dev/rack';
const quick = process.argv.includes('--quick');
const SIZES = process.env.SIZES ? process.env.SIZES.split(',').map(Number) : quick ? [200, 2_000] : [1_000, 10_000];
const DECISIONS = quick ? 300 : 3_000;

const policies: SchedulingPolicy[] = [
  {
    name: 'gang',
    priority: 20,
    onUnsatisfiable: 'Warn',
    match: { namespaces: ['ml-train'] },
    rules: {
      pack: { levels: [ZONE, BLOCK, RACK], level: RACK, mode: 'Required' },
      gpu: { products: ['NVIDIA-H200*'], resource: 'nvidia.com/gpu', mode: 'Preferred', weight: 50 },
    },
  },
  {
    name: 'near-payments',
    priority: 10,
    onUnsatisfiable: 'Warn',
    match: { namespaces: ['web'] },
    rules: {
      bandwidth: { to: { service: `payments/${serviceName(0)}` }, minGbps: 10, mode: 'Required' },
      latency: {
        to: { zone: 'us-east-1a' },
        maxRttMs: 2,
        mode: 'Preferred',
        percentile: 'p99',
        avoidDegradedNodes: true,
      },
    },
  },
];

function model(nodes: number): KubeObject[] {
  const objects = cluster({ nodes, endpoints: 2_000 }, NOW).filter((object) => object.kind !== 'NetworkTopology');
  const nodeObjects = objects.filter((object) => object.kind === 'Node');
  nodeObjects.forEach((node, index) => {
    Object.assign(node.metadata!.labels!, {
      [RACK]: `rack-${Math.floor(index / 40)}`,
      [BLOCK]: `block-${Math.floor(index / 400)}`,
    });
  });
  const topology = networkTopology(NOW) as Record<string, any>;
  topology.status.links = topology.spec.links.map((link: { from: string; to: string; rttMs: number }) => ({
    from: link.from,
    to: link.to,
    rttMs: link.rttMs,
    rttP99Ms: link.rttMs * 3,
    samples: 400,
  }));
  topology.status.degradedNodes = nodeObjects
    .slice(0, 5)
    .map((node) => ({ name: node.metadata!.name, rttMs: 4, zoneRttMs: 0.2 }));
  objects.push(topology);
  nodeObjects.forEach((node, index) => {
    for (let k = 0; k < 3; k++)
      objects.push({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `svc-${index}-${k}`,
          namespace: 'apps',
          labels: { 'pod-template-hash': 'h1' },
          ownerReferences: [{ kind: 'ReplicaSet', name: `svc-${index % 500}-h1`, controller: true, uid: 'u' }],
        },
        spec: {
          nodeName: node.metadata!.name,
          containers: [{ name: 'c', resources: { requests: { cpu: '2', memory: '4Gi' } } }],
        },
        status: { phase: 'Running' },
      });
    if (index % 13 === 0)
      objects.push({
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceSlice',
        metadata: { name: `${node.metadata!.name}-gpu` },
        spec: {
          driver: 'gpu.nvidia.com',
          nodeName: node.metadata!.name,
          pool: { name: node.metadata!.name, generation: 1, resourceSliceCount: 1 },
          devices: Array.from({ length: 8 }, (_, gpu) => ({
            name: `gpu-${gpu}`,
            attributes: {
              productName: { string: 'NVIDIA H200' },
              'resource.kubernetes.io/pcieRoot': { string: `pci0000:${gpu}` },
            },
            capacity: { memory: { value: '143771Mi' } },
          })),
        },
      });
  });
  return objects;
}

function trainer(workload: number, replica: number): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `job-${workload}-7f-${replica}`,
      labels: { app: `job-${workload}`, 'pod-template-hash': '7f' },
      annotations: { 'topogate.dev/replicas': '8' },
      ownerReferences: [{ kind: 'ReplicaSet', name: `job-${workload}-7f`, controller: true, uid: `u${workload}` }],
    },
    spec: { containers: [{ name: 'c', resources: { requests: { cpu: '4', memory: '16Gi' } } }] },
  };
}

function web(index: number): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `etl-${index}`, labels: { app: `etl-${index}` } },
    spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] },
  };
}

interface Row {
  readonly nodes: number;
  readonly compileMs: number;
  readonly newWorkloads: Percentiles;
  readonly replicas: Percentiles;
  readonly bandwidthLatency: Percentiles;
}

function time(samples: number, run: (index: number) => void): Percentiles {
  const us: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = process.hrtime.bigint();
    run(i);
    us.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return percentiles(us);
}

function measure(nodes: number): Row {
  const snapshot = buildSnapshot(model(nodes), { now: NOW });
  collectGarbage();
  const start = process.hrtime.bigint();
  const compiled = compile(policies, snapshot);
  const compileMs = Number(process.hrtime.bigint() - start) / 1e6;
  const options = { now: NOW, maxSourceAgeMs: 600_000 };
  // The first pack decision of a request shape counts each rack's room (a pass over the nodes, once per snapshot).
  decide(podRequest(trainer(-1, 0), 'ml-train'), compiled, options);
  for (let i = 0; i < 200; i++) decide(podRequest(trainer(1_000_000 + i, 0), 'ml-train'), compiled, options);
  const newWorkloads = time(DECISIONS, (i) => decide(podRequest(trainer(i, 0), 'ml-train'), compiled, options));
  const replicas = time(DECISIONS, (i) => decide(podRequest(trainer(7, i), 'ml-train'), compiled, options));
  const bandwidthLatency = time(DECISIONS, (i) => decide(podRequest(web(i), 'web'), compiled, options));
  const check = decide(podRequest(trainer(3, 0), 'ml-train'), compiled, options);
  if (!check.applied.includes('gang')) throw new Error(`the pack policy did not apply: ${check.warnings.join('; ')}`);
  return { nodes, compileMs, newWorkloads, replicas, bandwidthLatency };
}

const rows = SIZES.map(measure);
const fmt = (value: number) => value.toFixed(1);
const lines = [
  '| nodes | compile ms | new workload p50 / p99 µs | replica p50 / p99 µs | bandwidth + latency p50 / p99 µs |',
  '|---|---|---|---|---|',
  ...rows.map(
    (row) =>
      `| ${row.nodes} | ${fmt(row.compileMs)} | ${fmt(row.newWorkloads.p50)} / ${fmt(row.newWorkloads.p99)} | ${fmt(row.replicas.p50)} / ${fmt(row.replicas.p99)} | ${fmt(row.bandwidthLatency.p50)} / ${fmt(row.bandwidthLatency.p99)} |`,
  ),
];
const [small, large] = rows as [Row, Row];
lines.push(
  '',
  `p50 ratio ${large.nodes} / ${small.nodes} nodes: new workload ${(large.newWorkloads.p50 / small.newWorkloads.p50).toFixed(2)}, replica ${(large.replicas.p50 / small.replicas.p50).toFixed(2)}, bandwidth + latency ${(large.bandwidthLatency.p50 / small.bandwidthLatency.p50).toFixed(2)}`,
);
console.log(lines.join('\n'));
