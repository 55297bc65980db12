// The requests whose decisions must not change when the engine is reworked:
// every real-world Pod (and workload template) of the shared fixtures, the
// benchmark's Pods, and spoiled fixture Pods from the fuzz corpus, each
// decided against the demo install (policies/ over examples/cluster) and the
// benchmark's policy set, in several namespaces. golden.json holds digests of
// what the code decided when it was recorded (record.ts): the decisions with
// their explain traces run to megabytes.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { loadPolicySet, loadSnapshot } from '../../../bench/model.ts';
import { decisionPods, trainerPod } from '../../../bench/workload.ts';
import { compile, type CompiledPolicySet } from '../../../src/policy/compiler.ts';
import type { Decision, DecisionOptions } from '../../../src/policy/types.ts';
import { basePods, mutated, namespaces } from '../fuzz/corpus.ts';
import { demoCompiled, demoOptions, demoSnapshot } from '../fuzz/demo.ts';
import { buildFabric } from '../../../bench/placement/fabric.ts';
import { parsePolicies } from '../../../src/policy/parse.ts';
import { TopologyBuilder } from '../../../src/topology/builder.ts';
import { nodeObject } from '../../e2e/harness/kube.ts';

export interface GoldenCase {
  readonly label: string;
  readonly pod: unknown;
  readonly namespace: string;
  readonly compiled: CompiledPolicySet;
  readonly options: DecisionOptions;
}

const BENCH_NOW = Date.parse('2026-12-01T10:00:00Z');
export const benchOptions: DecisionOptions = { now: BENCH_NOW, maxSourceAgeMs: 10 * 60_000 };
const BENCH_NAMESPACES = ['ml-training', 'web', 'payments', 'batch'];
const SPOILED = 300;

export async function goldenCases(): Promise<GoldenCase[]> {
  const demo = await demoCompiled();
  // The same policies, half rolled out and every other one audited: decisions then depend on the workload.
  const partial = compile(
    demo.policies.map(({ policy }, index) => ({
      ...policy,
      rollout: { percent: 50 },
      ...(index % 2 === 1 && { enforcement: 'Audit' as const }),
    })),
    await demoSnapshot(),
  );
  const bench = benchCompiled();
  const cases: GoldenCase[] = [];
  const add = (label: string, pod: unknown, namespace: string, compiled: CompiledPolicySet, options: DecisionOptions) =>
    cases.push({ label, pod, namespace, compiled, options });

  basePods.forEach((pod, index) => {
    for (const namespace of namespaces) {
      add(`real-world #${index} demo ${namespace}`, pod, namespace, demo, demoOptions);
      add(`real-world #${index} partial ${namespace}`, pod, namespace, partial, demoOptions);
    }
    for (const namespace of BENCH_NAMESPACES)
      add(`real-world #${index} bench ${namespace}`, pod, namespace, bench, benchOptions);
  });
  decisionPods().forEach(({ pod, namespace }, index) =>
    add(`bench pod #${index} ${namespace}`, pod, namespace, bench, benchOptions),
  );
  add('bench trainer (http)', trainerPod(), 'ml-training', bench, benchOptions);
  const fabric = fabricCompiled();
  for (const [label, pod, namespace] of fabricPods()) add(`fabric ${label}`, pod, namespace, fabric, benchOptions);
  const spoiled = fc.sample(mutated(basePods), { numRuns: SPOILED, seed: 20261203 });
  spoiled.forEach((pod, index) => {
    if (typeof pod !== 'object' || pod === null || Array.isArray(pod)) return;
    add(`spoiled #${index}`, pod, namespaces[index % namespaces.length]!, demo, demoOptions);
  });
  return cases;
}

/** The benchmark's 100 policies over its 100-node cluster. */
export function benchCompiled(): CompiledPolicySet {
  return compile(loadPolicySet(100), loadSnapshot(100, BENCH_NOW));
}

/** A decision's JSON text (what the answer carries), digested; the snapshot's id is random per process. */
export function digest(decision: Decision, compiled: CompiledPolicySet): string {
  const text = JSON.stringify(decision).replaceAll(compiled.snapshotId, '<snapshot>');
  return createHash('sha256').update(text).digest('base64url');
}

/** A Deployment's replica as the ReplicaSet controller makes it (the webhook sees no name yet). */
function replicaOf(deployment: string, requests: Record<string, string>, annotations?: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${deployment}-7d4-`,
      labels: { app: deployment, 'pod-template-hash': '7d4' },
      ...(annotations ? { annotations } : {}),
      ownerReferences: [{ kind: 'ReplicaSet', name: `${deployment}-7d4`, controller: true, uid: deployment }],
    },
    spec: {
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10', resources: { requests } }],
    },
  };
}

/** The placement benchmark's fabric policies over its 160-node fabric, a shop's callers bound in both zones. */
function fabricCompiled(): CompiledPolicySet {
  const fabric = buildFabric(1);
  const builder = new TopologyBuilder({ sources: ['nodes', 'pods', 'networkTopologies'] });
  builder.replace('nodes', fabric.fakeNodes.map(nodeObject) as never, BENCH_NOW);
  const bound = (name: string, deployment: string, nodeName: string) => ({
    ...replicaOf(deployment, { cpu: '100m' }),
    metadata: { ...replicaOf(deployment, {}).metadata, name, namespace: 'fx-shop-1' },
    spec: { nodeName, containers: [{ name: 'main', resources: { requests: { cpu: '100m' } } }] },
    status: { phase: 'Running' },
  });
  builder.replace(
    'pods',
    [
      bound('frontend-1', 'frontend', 'fx-a1-r2-n3'),
      bound('frontend-2', 'frontend', 'fx-b2-r1-n5'),
      bound('checkoutservice-1', 'checkoutservice', 'fx-a1-r2-n4'),
      bound('cartservice-1', 'cartservice', 'fx-a1-r2-n1'),
      // Other tenants: what pack's room and BestFit count.
      ...fabric.tenants.map((tenant, index) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `tenant-${index}`, namespace: 'default' },
        spec: {
          nodeName: tenant.node,
          containers: [
            {
              name: 'main',
              resources: {
                requests: {
                  cpu: `${tenant.cpuMilli}m`,
                  memory: `${tenant.memoryMi}Mi`,
                  ...(tenant.gpus > 0 ? { 'nvidia.com/gpu': String(tenant.gpus) } : {}),
                },
              },
            },
          ],
        },
        status: { phase: 'Running' },
      })),
    ],
    BENCH_NOW,
  );
  builder.replace(
    'networkTopologies',
    [
      {
        ...(fabric.networkTopology as object),
        status: { ...(fabric.networkStatus as object), observedAt: new Date(BENCH_NOW - 1000).toISOString() },
      },
    ],
    BENCH_NOW,
  );
  const text = readFileSync(new URL('../../../bench/placement/policies/fabric.yaml', import.meta.url), 'utf8');
  return compile(parsePolicies(text, 'fabric.yaml').policies, builder.publish());
}

function fabricPods(): [label: string, pod: unknown, namespace: string][] {
  const gang = { cpu: '4', memory: '32Gi', 'nvidia.com/gpu': '1' };
  return [
    ['cartservice (a zone lacks it)', replicaOf('cartservice', { cpu: '200m' }), 'fx-shop-1'],
    ['productcatalogservice (two callers bound)', replicaOf('productcatalogservice', { cpu: '100m' }), 'fx-shop-1'],
    ['redis-cart (its caller in one zone)', replicaOf('redis-cart', { cpu: '70m' }), 'fx-shop-1'],
    ['paymentservice (no caller bound elsewhere)', replicaOf('paymentservice', { cpu: '100m' }), 'fx-shop-2'],
    ['frontend (spread)', replicaOf('frontend', { cpu: '100m' }), 'fx-shop-1'],
    ['gang of 16', replicaOf('gang-3', gang, { 'topogate.dev/replicas': '16' }), 'fx-train'],
  ];
}
