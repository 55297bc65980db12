// Every real-world Pod and workload pod template in the shared fixtures,
// decided against a cluster (the engine tests' one plus the real-world GPU
// nodes and NodeResourceTopologies), patched, and validated against the
// official core/v1 OpenAPI schema of Kubernetes 1.35.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import { parseAllDocuments } from 'yaml';
import type { KubeObject, Pod } from '../../../src/kube/types.ts';
import { isWorkloadKind, templatePod } from '../../../src/kube/workloads.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { loadTopologyPaths } from '../../../src/sources/topology/files.ts';
import { clusterObjects, NOW, OPTIONS, policy } from './engine-cluster.ts';
import { OpenApiValidator } from './engine-openapi.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';

const fixtures = new URL('../../../../shared/fixtures/real-world/', import.meta.url);
const validator = new OpenApiValidator(new URL('openapi/api__v1_openapi.k8s-1.35.json', fixtures));
const POD_SCHEMA = 'io.k8s.api.core.v1.Pod';
const INVALID = 'k8s-website.pod-with-node-affinity.INVALID-historical.yaml';
const ROUND_TRIP = 'k8s-api-roundtrip.';

const policies = [
  policy(
    'gpu-required',
    { gpu: { products: ['NVIDIA-A100*', 'NVIDIA-H100*'], resource: 'nvidia.com/gpu', mode: 'Required', weight: 100 } },
    { priority: 20, match: { resources: ['nvidia.com/gpu'] } },
  ),
  policy(
    'gpu-preferred',
    { gpu: { products: ['Tesla-*'], resource: 'nvidia.com/gpu', mode: 'Preferred', weight: 40 } },
    { priority: 10 },
  ),
  policy('zoned', {
    nodeLabels: {
      required: [{ key: 'topology.kubernetes.io/zone', operator: 'Exists' }],
      preferred: [{ weight: 10, requirements: [{ key: 'disk', operator: 'In', values: ['nvme'] }] }],
    },
  }),
  policy('near-a', { latency: { to: { zone: 'zone-a' }, maxRttMs: 2, mode: 'Preferred' } }),
  policy('spread', {
    spread: [
      {
        topologyKey: 'topology.kubernetes.io/zone',
        maxSkew: 1,
        whenUnsatisfiable: 'ScheduleAnyway',
        matchLabelKeys: ['pod-template-hash'],
      },
    ],
  }),
  policy(
    'numa',
    { numa: { policy: 'SingleNUMANode', mode: 'Preferred', maxCandidates: 4, schedulerName: 'topo-aware-scheduler' } },
    { match: { qosClasses: ['Guaranteed'] } },
  ),
];

function documentsOf(file: string): unknown[] {
  const text = readFileSync(new URL(`pods/${file}`, fixtures), 'utf8');
  if (file.endsWith('.json')) return [JSON.parse(text)];
  return parseAllDocuments(text)
    .map((document) => document.toJS())
    .filter((value) => value !== null);
}

/** The Pods a fixture file stands for: its Pods, and its core workloads' templates as Pods. */
function podsOf(file: string): { label: string; pod: Pod }[] {
  return documentsOf(file).flatMap((value, index) => {
    const object = value as KubeObject;
    const label = `${file}#${index + 1} ${String(object.kind)}`;
    if (object.kind === 'Pod') return [{ label, pod: object as Pod }];
    const template = isWorkloadKind(object.kind) ? templatePod(object) : undefined;
    return template ? [{ label, pod: template }] : [];
  });
}

describe('real-world Pods, patched, stay valid core/v1 Pods', async () => {
  const objects = [
    ...clusterObjects(),
    ...(await loadTopologyPaths([new URL('nodes/', fixtures).pathname, new URL('nrt/', fixtures).pathname])),
  ];
  const compiled = compile(policies, buildSnapshot(objects, { now: NOW }));
  const files = readdirSync(new URL('pods/', fixtures))
    .filter((file) => file !== INVALID)
    .sort();
  const changed: string[] = [];

  for (const file of files) {
    for (const { label, pod } of podsOf(file)) {
      test(label, () => {
        const before = validator.validate(POD_SCHEMA, pod);
        // The round-trip fixture fills fields newer than 1.35 too: there only what the patch adds must be valid.
        if (!file.startsWith(ROUND_TRIP)) assert.deepEqual(before, [], 'the fixture itself is valid');
        const decision = decide(podRequest(pod, pod.metadata?.namespace ?? 'default'), compiled, OPTIONS);
        assert.equal(decision.allowed, true);
        const patched = fastJsonPatch.applyPatch(
          structuredClone(pod),
          structuredClone(decision.patch) as fastJsonPatch.Operation[],
          true,
          false,
        ).newDocument;
        assert.deepEqual(
          validator.validate(POD_SCHEMA, patched).filter((problem) => !before.includes(problem)),
          [],
        );
        if (decision.patch.length > 0) changed.push(label);
      });
    }
  }

  test('the policies changed most of them', () => {
    assert.ok(changed.length >= 10, `only ${changed.length} changed: ${changed.join(', ')}`);
  });
});

test('the validator rejects the historical invalid Pod', () => {
  const [pod] = documentsOf(INVALID);
  const problems = validator.validate(POD_SCHEMA, pod);
  assert.ok(
    problems.some((problem) =>
      problem.startsWith('/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution'),
    ),
    problems.join('\n'),
  );
});

test('the validator catches what a bad patch would do', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }] } };
  assert.deepEqual(validator.validate(POD_SCHEMA, pod), []);
  assert.deepEqual(
    validator.validate(POD_SCHEMA, {
      ...pod,
      spec: { ...pod.spec, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{}] } } },
    }),
    ['/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution: expected an object'],
  );
  assert.deepEqual(
    validator.validate(POD_SCHEMA, {
      ...pod,
      spec: {
        ...pod.spec,
        topologySpreadConstraints: [{ maxSkew: '1', topologyKey: 'k', whenUnsatisfiable: 'DoNotSchedule' }],
      },
    }),
    ['/spec/topologySpreadConstraints/0/maxSkew: expected an integer'],
  );
  assert.deepEqual(validator.validate(POD_SCHEMA, { ...pod, spec: { ...pod.spec, bogus: true } }), [
    '/spec/bogus: unknown field',
  ]);
  assert.deepEqual(validator.validate(POD_SCHEMA, { ...pod, spec: {} }), ['/spec/containers: required']);
});
