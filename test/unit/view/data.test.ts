// What the topology view shows of the demo cluster: the facts the page and
// GET /api/snapshot carry, computed from the same snapshot the webhook reads.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadTopologyPaths } from '../../../src/sources/topology/files.ts';
import { loadPolicies } from '../../../src/sources/policies/files.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { viewData } from '../../../src/view/data.ts';
import { recentDecisions } from '../../../src/view/recent.ts';

const cluster = fileURLToPath(new URL('../../../examples/cluster/', import.meta.url));
const policiesDir = fileURLToPath(new URL('../../../policies/', import.meta.url));

describe('the view of the demo cluster', async () => {
  const snapshot = buildSnapshot(await loadTopologyPaths([cluster]), { now: 0 });
  const { policies } = await loadPolicies([policiesDir]);
  const decision = {
    id: 0,
    workload: 'web/Deployment/frontend',
    by: 'webhook' as const,
    at: '2026-12-03T10:00:00.000Z',
    namespace: 'web',
    pod: 'frontend-',
    outcome: 'patched' as const,
    policies: ['web-zone-spread'],
    latencyMs: 0.02,
  };
  const data = viewData({ snapshot, policies, decisions: [decision], now: Date.parse('2026-12-03T10:00:05Z') });

  it('counts nodes per zone, cordoned apart', () => {
    assert.equal(data.nodes.total, 13);
    assert.deepEqual(
      data.zones.map((zone) => [zone.name, zone.nodes, zone.schedulable, zone.cordoned]),
      [
        ['us-east-1a', 4, 4, 0],
        ['us-east-1b', 5, 5, 0],
        ['us-east-1c', 4, 3, 1],
      ],
    );
    assert.equal(data.nodes.listed.find((node) => node.name === 'cpu-1c-2')?.cordoned, true);
  });

  it('gives the RTT matrix with the source of each link, symmetric, the zone itself apart', () => {
    const network = data.network!;
    assert.deepEqual(network.domains, ['us-east-1a', 'us-east-1b', 'us-east-1c']);
    assert.deepEqual(network.cells[0]![1], { rttMs: 0.9, source: 'declared', bandwidthGbps: 25 });
    assert.deepEqual(network.cells[1]![0], { rttMs: 0.9, source: 'declared', bandwidthGbps: 25 });
    assert.deepEqual(network.cells[2]![0], { rttMs: 1.4, source: 'declared', bandwidthGbps: 25 });
    assert.deepEqual(network.cells[1]![1], { source: 'self' });
    assert.equal(network.ageSeconds, undefined, 'the demo declares its links and has no observedAt');
  });

  it('lists GPUs by product with their counts, and free NUMA capacity per cell', () => {
    assert.deepEqual(
      data.gpus.map((gpu) => [gpu.product, gpu.nodes, gpu.gpus]),
      [
        ['NVIDIA-A100-SXM4-80GB', 2, 16],
        ['NVIDIA-H100-80GB-HBM3', 1, 8],
        ['Tesla-T4', 1, 4],
      ],
    );
    assert.equal(data.numa.total, 12);
    assert.deepEqual(data.numa.listed[0], { node: 'cpu-1a-1', zone: 'node-0', cpu: 3, memoryGiB: 12 });
  });

  it('places the etcd leader and the control-plane Pods on nodes and zones', () => {
    assert.equal(data.etcd.leader, 'cp-us-east-1b');
    assert.deepEqual(
      data.etcd.members.find((member) => member.isLeader),
      {
        name: 'cp-us-east-1b',
        node: 'cp-us-east-1b',
        zone: 'us-east-1b',
        isLeader: true,
        peerRttMs: { 'cp-us-east-1a': 0.9, 'cp-us-east-1c': 1.1 },
      },
    );
    assert.equal(data.controlPlane.filter((pod) => pod.component === 'kube-scheduler').length, 3);
  });

  it('names the policies in force and passes the recent decisions through, never a Pod body', () => {
    assert.deepEqual(
      data.policies.listed.map((policy) => policy.name),
      policies.map((policy) => policy.name),
    );
    assert.deepEqual(
      data.policies.listed.find((policy) => policy.name === 'gpu-training-h100')?.onUnsatisfiable,
      'Reject',
    );
    assert.equal(
      data.policies.listed.find((policy) => policy.name === 'gpu-training-h100')?.source,
      policies.find((policy) => policy.name === 'gpu-training-h100')?.source?.file,
    );
    assert.match(data.policies.listed[0]!.source!, /policies\/[\w-]+\.yaml$/);
    assert.deepEqual(data.decisions, [decision]);
    assert.equal(data.generatedAt, '2026-12-03T10:00:05.000Z');
  });
});

describe('the recent decisions ring', () => {
  it('keeps the newest, newest first, and counts every one added', () => {
    const ring = recentDecisions(3);
    for (let n = 1; n <= 5; n++)
      ring.add({
        at: `t${n}`,
        namespace: 'ns',
        pod: `p${n}`,
        workload: `ns/Pod/p${n}`,
        by: 'webhook',
        outcome: 'allowed',
        policies: [],
        latencyMs: n,
      });
    assert.deepEqual(
      ring.list().map((entry) => [entry.id, entry.pod]),
      [
        [4, 'p5'],
        [3, 'p4'],
        [2, 'p3'],
      ],
    );
    assert.equal(ring.added, 5);
    assert.equal(ring.find(4)?.decision.pod, 'p5');
    assert.equal(ring.find(2)?.decision.pod, 'p3');
    assert.equal(ring.find(1), undefined, 'overwritten');
    assert.equal(ring.find(5), undefined, 'not yet');
  });
});
