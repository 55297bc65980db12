import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { cluster, ZONES } from '../../../bench/cluster.ts';
import { loadPolicySet, loadSnapshot } from '../../../bench/model.ts';
import { admissionReview, decisionPods, trainerPod } from '../../../bench/workload.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';

const NOW = Date.parse('2026-12-01T10:00:00Z');

test('the synthetic cluster is the same on every run and puts GPUs in every zone', () => {
  const objects = cluster({ nodes: 300, endpoints: 1000 }, NOW);
  assert.deepEqual(cluster({ nodes: 300, endpoints: 1000 }, NOW), objects);
  const gpuZones = new Set(
    objects
      .filter((o) => o.kind === 'Node' && o.metadata?.labels?.['nvidia.com/gpu.product'] !== undefined)
      .map((o) => o.metadata!.labels!['topology.kubernetes.io/zone']),
  );
  assert.deepEqual([...gpuZones].sort(), [...ZONES].sort());
});

test('the model reads every node, NUMA object and Service of the synthetic cluster', () => {
  const snapshot = loadSnapshot(300, NOW);
  assert.equal(snapshot.nodes.count, 300);
  assert.equal(snapshot.numa.known().size, 300);
  assert.ok(snapshot.services.size > 0);
  assert.deepEqual([...snapshot.nodes.labelValues('topology.kubernetes.io/zone').keys()].sort(), [...ZONES].sort());
  assert.ok(snapshot.etcd.leader !== undefined);
});

test('the HTTP body is a ~10 KB Pod CREATE that the benchmark policies mutate', () => {
  const body = JSON.stringify(admissionReview(trainerPod(), 'ml-training'));
  assert.ok(body.length > 9_000 && body.length < 12_000, `${body.length} bytes`);
  const compiled = compile(loadPolicySet(100), loadSnapshot(300, NOW));
  const decision = decide(podRequest(trainerPod(), 'ml-training'), compiled, {
    now: NOW,
    maxSourceAgeMs: 600_000,
  });
  assert.equal(decision.allowed, true);
  assert.ok(decision.patch.length > 0);
  assert.ok(decision.applied.includes('platform-0'));
});

test('each decision Pod meets at least one policy of the 100-policy set', () => {
  const compiled = compile(loadPolicySet(100), loadSnapshot(300, NOW));
  for (const { pod, namespace } of decisionPods()) {
    const decision = decide(podRequest(pod, namespace), compiled, { now: NOW, maxSourceAgeMs: 600_000 });
    assert.ok(decision.matched.length > 0, `${namespace} matched nothing`);
  }
});
