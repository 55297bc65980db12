// The example policy of ../shared/spec/policy.md, read by the loader from the
// spec itself, decided for a training Pod. The example sets minDomains with
// whenUnsatisfiable: ScheduleAnyway, which the same page forbids ("only
// with DoNotSchedule"); the loader rejects that, so this test says
// DoNotSchedule and keeps everything else as written.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { parsePolicies } from '../../../src/policy/parse.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { node, NOW, OPTIONS } from './engine-cluster.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { networkTopology } from '../../fixtures/network-topology.ts';

const spec = readFileSync(new URL('../../../../shared/spec/policy.md', import.meta.url), 'utf8');
const example = spec.split('```yaml\n')[1]!.split('```')[0]!;

function p5(name: string, zone: string): KubeObject {
  return node(name, {
    'topology.kubernetes.io/zone': zone,
    'node.kubernetes.io/instance-type': 'p5.48xlarge',
    'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
    'nvidia.com/gpu.memory': '81559',
    'nvidia.com/gpu.count': '8',
    ...(zone === 'us-east-1a' ? { disk: 'nvme' } : {}),
  });
}

const objects: KubeObject[] = [
  p5('p5-a', 'us-east-1a'),
  p5('p5-b', 'us-east-1b'),
  p5('p5-c', 'us-east-1c'),
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ml-research', labels: { team: 'ml' } } },
  networkTopology({
    links: [
      { from: 'us-east-1a', to: 'us-east-1b', rttMs: 0.9 },
      { from: 'us-east-1a', to: 'us-east-1c', rttMs: 2.4 },
    ],
  }),
  ...['p5-a', 'p5-b'].map((name) => ({
    apiVersion: 'topology.node.k8s.io/v1alpha2',
    kind: 'NodeResourceTopology',
    metadata: { name },
    zones: [0, 1].map((cell) => ({
      name: `node-${cell}`,
      type: 'Node',
      resources: [
        { name: 'cpu', capacity: '96', allocatable: '96', available: name === 'p5-a' ? '40' : '90' },
        { name: 'memory', capacity: '1Ti', allocatable: '1Ti', available: '900Gi' },
        { name: 'nvidia.com/gpu', capacity: '4', allocatable: '4', available: '4' },
      ],
    })),
  })),
];

test('the policy.md example works as written', () => {
  const { policies, errors } = parsePolicies(
    example.replace('whenUnsatisfiable: ScheduleAnyway', 'whenUnsatisfiable: DoNotSchedule'),
    'policy.md',
  );
  assert.deepEqual(errors, []);
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'trainer-0',
      labels: { app: 'trainer', 'app.kubernetes.io/name': 'llm', 'pod-template-hash': 'abc' },
    },
    spec: {
      containers: [
        { name: 't', image: 'i', resources: { limits: { cpu: '32', memory: '256Gi', 'nvidia.com/gpu': '4' } } },
      ],
    },
  };
  const compiled = compile(policies, buildSnapshot(objects, { now: NOW }));
  const decision = decide(podRequest(pod, 'ml-research'), compiled, OPTIONS);
  assert.deepEqual(decision.warnings, []);
  const output = fastJsonPatch.applyPatch(
    structuredClone(pod),
    structuredClone(decision.patch) as fastJsonPatch.Operation[],
    true,
    false,
  ).newDocument as any;
  const affinity = output.spec.affinity.nodeAffinity;
  assert.deepEqual(affinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, [
    {
      matchExpressions: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['p5.48xlarge'] },
        { key: 'nvidia.com/gpu.product', operator: 'In', values: ['NVIDIA-H100-80GB-HBM3'] },
        { key: 'nvidia.com/gpu.memory', operator: 'Gt', values: ['79999'] },
        { key: 'nvidia.com/gpu.count', operator: 'Gt', values: ['3'] },
        { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a', 'us-east-1b'] },
      ],
    },
  ]);
  assert.deepEqual(affinity.preferredDuringSchedulingIgnoredDuringExecution, [
    { weight: 50, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['nvme'] }] } },
    {
      weight: 100,
      preference: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['p5-a', 'p5-b'] }] },
    },
  ]);
  assert.deepEqual(output.spec.topologySpreadConstraints, [
    {
      maxSkew: 1,
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'DoNotSchedule',
      minDomains: 3,
      labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'llm' } },
      matchLabelKeys: ['pod-template-hash'],
    },
  ]);
  assert.equal(output.spec.schedulerName, 'topo-aware-scheduler');
  const { 'topogate.dev/decision': record, ...annotations } = output.metadata.annotations;
  assert.deepEqual(annotations, {
    'topogate.dev/policies': 'gpu-training',
    'topogate.dev/numa-hint': JSON.stringify({ 'p5-a': 'node-0', 'p5-b': 'node-0' }),
  });
  assert.deepEqual(JSON.parse(record).policies, [
    {
      name: 'gpu-training',
      rules: {
        'nodeLabels.required': 'added',
        'nodeLabels.preferred': 'added',
        gpu: 'added',
        latency: 'added',
        'spread[0]': 'added',
        numa: 'added',
      },
    },
  ]);
  const sandboxed = decide(podRequest(pod, 'ml-sandbox'), compiled, OPTIONS);
  assert.deepEqual(sandboxed.matched, []);
});
