// The rules from measured data and DRA at 100 to 10,000 nodes: does a
// decision cost the same whatever the node count? Each size runs in a fresh
// process (a child of `npm run bench`, or of this script alone) on the same
// synthetic cluster (bench/cluster.ts) with racks of 40 nodes inside a zone,
// three bound Pods on every node and a GPU ResourceSlice on one node in 13.
// Timed, per decision: pack for the first Pod of a new workload, a replica
// (the memo), a replica after some other Pod binds and another finishes (a
// new occupancy: the memo misses and the rack counts are corrected for the
// two nodes); bandwidth + latency p99 with avoidDegradedNodes for new Pods;
// gpu met by ResourceSlices on 8 nodes at every size, and on one node in 13
// (whose patch names every one by hostname); the dra rule on a
// ResourceClaimTemplate.
//   node bench/rules.ts [--quick]   (alone: writes its section of BENCHMARKS.md; --quick only prints)

import { readFile, writeFile } from 'node:fs/promises';
import { claimCreate } from '../src/admission/claim.ts';
import type { AdmissionRequest } from '../src/admission/review.ts';
import { podRequest } from '../src/kube/podFacts.ts';
import { NETWORK_TOPOLOGY } from '../src/api/v1alpha1/networktopology.ts';
import { ZONE_LABEL } from '../src/kube/labels.ts';
import type { KubeObject, Pod } from '../src/kube/types.ts';
import { decideClaim } from '../src/policy/claims.ts';
import { compile } from '../src/policy/compiler.ts';
import { decide } from '../src/policy/engine.ts';
import type { DecisionOptions, SchedulingPolicy } from '../src/policy/types.ts';
import { TopologyBuilder } from '../src/topology/builder.ts';
import { sourcesOf, TOPOLOGY_SOURCES } from '../src/topology/kinds.ts';
import type { SourceName } from '../src/topology/model.ts';
import { boundPod, cluster, networkTopology, serviceName, zoneOf } from './cluster.ts';
import { collectGarbage } from './gc.ts';
import {
  measureRules,
  renderRulesSection,
  RULES_HEADING,
  RULES_ROUNDS,
  type RulesJob,
  type RulesReport,
} from './rules-report.ts';
import { withSection } from './sections.ts';
import { percentiles, type Percentiles } from './stats.ts';

const NOW = Date.parse('2026-12-02T12:00:00Z');
const BLOCK = 'topogate.dev/block';
const RACK = 'topogate.dev/rack';
const RACK_NODES = 40;
/** Nodes with a B200 slice at every size: the gpu rule's output is the same length whatever the cluster. */
const FIXED_GPU_NODES = 8;
/**
 * Pods of other workloads bound at a time while the pack cases run, and the workloads they belong to. Not a
 * multiple of any size: the Pod that finishes is on another node than the one that binds (see `churn`).
 */
const CHURN_PODS = 150;
const CHURN_WORKLOADS = 97;

const gpu = (products: string[]) => ({ products, resource: 'nvidia.com/gpu', mode: 'Preferred' as const, weight: 50 });

const POLICIES: SchedulingPolicy[] = [
  {
    name: 'gang',
    priority: 20,
    onUnsatisfiable: 'Warn',
    match: { namespaces: ['ml-train'] },
    rules: { pack: { levels: [ZONE_LABEL, BLOCK, RACK], level: RACK, mode: 'Required' } },
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
  {
    name: 'b200',
    priority: 5,
    onUnsatisfiable: 'Warn',
    match: { namespaces: ['gpu-few'] },
    rules: { gpu: gpu(['NVIDIA-B200*']) },
  },
  {
    name: 'h200',
    priority: 5,
    onUnsatisfiable: 'Warn',
    match: { namespaces: ['gpu-many'] },
    rules: { gpu: gpu(['NVIDIA-H200*']) },
  },
  {
    name: 'align',
    priority: 1,
    onUnsatisfiable: 'Warn',
    match: { namespaces: ['dra'] },
    rules: { dra: { alignBy: 'resource.kubernetes.io/pcieRoot' } },
  },
];

function slice(node: string, name: string, product: string): KubeObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name: `${node}-${name}` },
    spec: {
      driver: 'gpu.nvidia.com',
      nodeName: node,
      pool: { name: `${node}-${name}`, generation: 1, resourceSliceCount: 1 },
      devices: Array.from({ length: 8 }, (_, index) => ({
        name: `gpu-${index}`,
        attributes: {
          productName: { string: product },
          'resource.kubernetes.io/pcieRoot': { string: `pci0000:${index}` },
        },
        capacity: { memory: { value: '143771Mi' } },
      })),
    },
  };
}

function model(nodes: number): KubeObject[] {
  const objects = cluster({ nodes, endpoints: 2_000 }, NOW).filter((object) => object.kind !== NETWORK_TOPOLOGY.kind);
  const nodeObjects = objects.filter((object) => object.kind === 'Node');
  nodeObjects.forEach((node, index) => {
    // Zones take nodes in turn (bench/cluster.ts): a rack is 40 nodes of one zone, a block 10 racks.
    const inZone = Math.floor(index / 6);
    Object.assign(node.metadata!.labels!, {
      [RACK]: `${zoneOf(index)}-rack-${Math.floor(inZone / RACK_NODES)}`,
      [BLOCK]: `${zoneOf(index)}-block-${Math.floor(inZone / (10 * RACK_NODES))}`,
    });
  });
  const topology = networkTopology(NOW) as Record<string, any>;
  topology.status.links = topology.spec.links.map((link: { from: string; to: string; rttMs: number }) => ({
    ...link,
    rttP99Ms: link.rttMs * 3,
    samples: 400,
  }));
  topology.status.degradedNodes = nodeObjects
    .slice(0, 5)
    .map((node) => ({ name: node.metadata!.name, rttMs: 4, zoneRttMs: 0.2 }));
  objects.push(topology);
  nodeObjects.forEach((node, index) => {
    const name = node.metadata!.name!;
    for (let k = 0; k < 3; k++) objects.push(boundPod(`svc-${index}-${k}`, name, `svc-${index % 500}`, '2'));
    if (index % 13 === 0) objects.push(slice(name, 'h200', 'NVIDIA H200'));
    if (index % 13 === 6 && index < 13 * FIXED_GPU_NODES) objects.push(slice(name, 'b200', 'NVIDIA B200'));
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

/** A Pod of its own kind (a label of its own): never answered from the memo. */
function single(index: number, extra: Pod['spec'] = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `one-${index}`, labels: { app: `one-${index}` } },
    spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }], ...extra },
  };
}

function claimTemplate(index: number): AdmissionRequest {
  const object = {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: { name: `gpus-${index}`, namespace: 'dra' },
    spec: {
      spec: {
        devices: {
          requests: [
            { name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com', count: 2 } },
            { name: 'nic', exactly: { deviceClassName: 'rdma.example.com' } },
          ],
        },
      },
    },
  };
  return {
    uid: `u${index}`,
    kind: { group: 'resource.k8s.io', version: 'v1', kind: 'ResourceClaimTemplate' },
    resource: { group: 'resource.k8s.io', version: 'v1', resource: 'resourceclaimtemplates' },
    operation: 'CREATE',
    namespace: 'dra',
    object,
  } as AdmissionRequest;
}

function time(samples: number, run: (index: number) => void): Percentiles {
  const us = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    const start = process.hrtime.bigint();
    run(i);
    us[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  return percentiles(us);
}

function measure({ nodes, decisions }: RulesJob): RulesReport {
  const builder = new TopologyBuilder({ sources: TOPOLOGY_SOURCES });
  const bySource = new Map<SourceName, KubeObject[]>(TOPOLOGY_SOURCES.map((source) => [source, []]));
  for (const object of model(nodes)) for (const source of sourcesOf(object)) bySource.get(source)?.push(object);
  for (const [source, list] of bySource) builder.replace(source, list, NOW);
  const snapshot = builder.publish();
  collectGarbage();
  const compiled = compile(POLICIES, snapshot);
  const options = (): DecisionOptions => ({ now: NOW, maxSourceAgeMs: 600_000, occupancy: builder.occupancy() });
  const check = decide(podRequest(trainer(-1, 0), 'ml-train'), compiled, options());
  if (!check.applied.includes('gang')) throw new Error(`the pack policy did not apply: ${check.warnings.join('; ')}`);
  const warmUps = Math.min(500, decisions);
  // Made beforehand, as the watch hands `serve` objects already parsed: their making is not the bind's cost.
  const churn = Array.from({ length: warmUps + decisions }, (_, index) => {
    const node = snapshot.nodes.bySlot((index * 7919) % snapshot.nodes.count)!.name;
    return boundPod(`churn-${index}`, node, `churn-${index % CHURN_WORKLOADS}`, '1');
  });
  let bound = 0;
  // Another workload's Pod binds somewhere, and the oldest of the last CHURN_PODS finishes: a new occupancy.
  // Steady, so that the racks keep their room and every size decides the same way (checked after the timing).
  const bindAndFinish = () => {
    const index = bound++;
    if (index >= CHURN_PODS) builder.apply('pods', 'DELETED', churn[index - CHURN_PODS]!, NOW);
    builder.apply('pods', 'ADDED', churn[index]!, NOW);
  };
  const warm = (run: (index: number) => void) => {
    for (let i = 0; i < warmUps; i++) run(1_000_000 + i);
  };
  const cases: [string, (index: number) => void][] = [
    ['pack: first Pod of a new workload', (i) => decide(podRequest(trainer(i, 0), 'ml-train'), compiled, options())],
    ['pack: a replica (memo)', (i) => decide(podRequest(trainer(7, i), 'ml-train'), compiled, options())],
    [
      'pack: a replica after a bind and a finish (both included)',
      (i) => {
        bindAndFinish();
        decide(podRequest(trainer(7, i), 'ml-train'), compiled, options());
      },
    ],
    ['bandwidth + latency p99, avoidDegradedNodes', (i) => decide(podRequest(single(i), 'web'), compiled, options())],
    [
      `gpu from ResourceSlices, ${FIXED_GPU_NODES} nodes`,
      (i) => decide(podRequest(single(i), 'gpu-few'), compiled, options()),
    ],
    ['gpu from ResourceSlices, 1 node in 13', (i) => decide(podRequest(single(i), 'gpu-many'), compiled, options())],
    [
      'dra: ResourceClaimTemplate',
      (i) => {
        const claim = claimCreate(claimTemplate(i));
        if (!claim || decideClaim(claim, compiled).patch.length === 0) throw new Error('the dra rule added nothing');
      },
    ],
  ];
  const results = cases.map(([name, run]) => {
    warm(run);
    collectGarbage();
    return { name, us: time(decisions, run) };
  });
  const after = decide(podRequest(trainer(7, -1), 'ml-train'), compiled, options());
  if (!after.applied.includes('gang'))
    throw new Error(`after the churn, pack did not apply: ${after.warnings.join('; ')}`);
  return { nodes, domains: new Set(bySource.get('nodes')!.map((n) => n.metadata!.labels![RACK])).size, results };
}

const job = process.argv[2]?.startsWith('{') ? (JSON.parse(process.argv[2]) as RulesJob) : undefined;
if (job) {
  const report = measure(job);
  // Run by hand (no parent), the report is printed: for a profile of one size.
  if (process.send) process.send(report, () => process.disconnect?.());
  else console.log(JSON.stringify(report.results.map(({ name, us }) => [name, us.p50])));
} else {
  const quick = process.argv.includes('--quick');
  const reports = quick
    ? await measureRules([100, 1_000], 300, 1)
    : await measureRules([100, 1_000, 10_000], 3_000, RULES_ROUNDS);
  const section = renderRulesSection(reports);
  console.log(section);
  // Alone, the full run puts its section into BENCHMARKS.md (as `npm run bench` does with the others').
  if (!quick) {
    const report = new URL('../BENCHMARKS.md', import.meta.url);
    await writeFile(
      report,
      withSection(await readFile(report, 'utf8'), RULES_HEADING, `${RULES_HEADING}\n\n${section}\n`),
    );
  }
}
