import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import pino from 'pino';
import type { KubeObject } from '../../../src/kube/types.ts';
import { loadPolicies } from '../../../src/sources/policies/files.ts';
import type { PolicyProvider, PolicyVersion } from '../../../src/ports/policies.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { createDecider } from '../../../src/server/decider.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import type { TopologySnapshot } from '../../../src/topology/model.ts';
import type { TopologyProvider } from '../../../src/ports/topology.ts';
import { loadTopologyPaths } from '../../../src/sources/topology/files.ts';

const root = new URL('../../../', import.meta.url);
const path = (relative: string) => fileURLToPath(new URL(relative, root));

function providers(snapshot: TopologySnapshot, policySet: PolicyVersion) {
  const topologyListeners = new Set<(snapshot: TopologySnapshot) => void>();
  const state = { snapshot, policySet };
  const topology: TopologyProvider = {
    current: () => state.snapshot,
    occupancy: () => state.snapshot.pods,
    readiness: () => ({ ready: true }),
    subscribe: (listener) => (topologyListeners.add(listener), () => topologyListeners.delete(listener)),
    stop: async () => {},
  };
  const policies: PolicyProvider = {
    current: () => state.policySet,
    readiness: () => ({ ready: true }),
    onChange: () => () => {},
    stop: async () => {},
  };
  return {
    state,
    topology,
    policies,
    publish: (next: TopologySnapshot) => (
      (state.snapshot = next),
      topologyListeners.forEach((listener) => listener(next))
    ),
  };
}

test('the compiled set is kept per (policy version, snapshot version) and follows a new version', async () => {
  const NOW = Date.now();
  const { policies: loaded, errors } = await loadPolicies([path('policies')]);
  assert.deepEqual(errors, []);
  const objects = await loadTopologyPaths([path('examples/cluster')]);
  const withoutGpus = objects.filter(
    (object: KubeObject) => object.kind !== 'Node' || object.metadata?.labels?.['nvidia.com/gpu.present'] !== 'true',
  );
  const review = JSON.parse(await readFile(path('examples/admission/pod-create-gpu-training.json'), 'utf8'));
  const request = podRequest(review.request.object, review.request.namespace);

  const cluster = providers(buildSnapshot(objects, { now: Date.now(), version: 1 }), { version: 1, policies: loaded });
  const decider = createDecider({
    policies: cluster.policies,
    topology: cluster.topology,
    maxSourceAgeMs: 600_000,
    log: pino({ level: 'silent' }),
    now: () => NOW,
  });
  try {
    const withGpus = decider.decide(request);
    assert.ok(withGpus.applied.includes('gpu-training'), JSON.stringify(withGpus.warnings));

    // A different snapshot under the same version is not looked at: the memo answers.
    cluster.state.snapshot = buildSnapshot(withoutGpus, { now: Date.now(), version: 1 });
    assert.deepEqual(decider.decide(request), withGpus);

    // A new version is compiled (on publish, off the request path) and decided from: the same answer as
    // deciding on that snapshot directly, where the GPU policy no longer finds its nodes.
    const gpuless = buildSnapshot(withoutGpus, { now: Date.now(), version: 2 });
    cluster.publish(gpuless);
    const fresh = decide(request, compile(loaded, gpuless), { now: NOW, maxSourceAgeMs: 600_000 });
    assert.ok(!fresh.applied.includes('gpu-training'), JSON.stringify(fresh.applied));
    assert.deepEqual(decider.decide(request), fresh);

    // So is a new policy version.
    cluster.state.policySet = { version: 2, policies: [] };
    assert.deepEqual(decider.decide(request).matched, []);
  } finally {
    decider.stop();
  }
});
