// The demo cluster is what `npm start` serves and what policies/ is written
// against: these are the facts others rely on.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { loadTopologyPaths } from '../../../src/sources/topology/files.ts';

const cluster = fileURLToPath(new URL('../../../examples/cluster/', import.meta.url));

describe('examples/cluster', async () => {
  const snapshot = buildSnapshot(await loadTopologyPaths([cluster]), { now: 0 });
  const namesOf = (set: ReturnType<typeof snapshot.nodes.all>) =>
    [...set.slots()].map((s) => snapshot.nodes.bySlot(s)!.name).sort();

  it('loads without a problem in any source', () => {
    for (const status of snapshot.sources.values()) assert.equal(status.error, undefined, status.name);
    assert.equal(snapshot.nodes.count, 13);
  });

  it('spreads nodes over three zones of one region', () => {
    assert.deepEqual([...snapshot.nodes.labelValues('topology.kubernetes.io/zone').keys()].sort(), [
      'us-east-1a',
      'us-east-1b',
      'us-east-1c',
    ]);
    assert.deepEqual([...snapshot.nodes.labelValues('topology.kubernetes.io/region').keys()], ['us-east-1']);
  });

  it('has GPU nodes of three products, one of them tainted for ml-training', () => {
    const products = snapshot.nodes.labelValues('nvidia.com/gpu.product');
    assert.deepEqual(namesOf(products.get('NVIDIA-H100-80GB-HBM3')!), ['gpu-h100-1a-1']);
    assert.deepEqual(namesOf(products.get('NVIDIA-A100-SXM4-80GB')!), ['gpu-a100-1b-1', 'gpu-a100-1c-1']);
    assert.deepEqual(namesOf(products.get('Tesla-T4')!), ['gpu-t4-1b-1']);
    const dedicated = snapshot.nodes.taintGroups().find((g) => g.taints.some((t) => t.key === 'dedicated'));
    assert.deepEqual(namesOf(dedicated!.nodes), ['gpu-a100-1c-1']);
  });

  it('has one cordoned node', () => {
    assert.deepEqual(namesOf(snapshot.nodes.all().andNot(snapshot.nodes.schedulable())), ['cpu-1c-2']);
  });

  it('labels ml-training with team=ml', () => {
    assert.equal(snapshot.namespaces.get('ml-training')?.team, 'ml');
    assert.ok(snapshot.namespaces.has('web') && snapshot.namespaces.has('default'));
  });

  it('has the etcd leader on the us-east-1b control-plane node, and RTT between all zones', () => {
    assert.equal(snapshot.etcd.leader?.nodeName, 'cp-us-east-1b');
    assert.equal(snapshot.network?.rttMs('us-east-1c', 'us-east-1b'), 1.1);
    assert.deepEqual(
      new Map(snapshot.services),
      new Map([
        ['web/frontend', new Set(['us-east-1a', 'us-east-1b'])],
        ['ml-inference/model-server', new Set(['us-east-1b'])],
      ]),
    );
  });

  it('has NUMA cells for CPU and GPU nodes', () => {
    assert.deepEqual(namesOf(snapshot.numa.known()), [
      'cpu-1a-1',
      'cpu-1b-1',
      'cpu-1c-1',
      'gpu-a100-1b-1',
      'gpu-h100-1a-1',
      'gpu-t4-1b-1',
    ]);
    assert.deepEqual(
      snapshot.numa.fit({ cpu: 4000, 'nvidia.com/gpu': 2000 }).ranked.map((c) => `${c.node}/${c.zone}`),
      ['gpu-a100-1b-1/node-1', 'gpu-t4-1b-1/node-0', 'gpu-h100-1a-1/node-1'],
    );
  });
});
