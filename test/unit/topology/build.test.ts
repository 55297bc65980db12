import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../../src/kube/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import type { NodeSet } from '../../../src/topology/nodeset.ts';
import { loadTopologyPaths } from '../../../src/sources/topology/files.ts';

const fixtures = (path: string) =>
  fileURLToPath(new URL(`../../../../shared/fixtures/real-world/${path}`, import.meta.url));
const names = (snapshot: ReturnType<typeof buildSnapshot>, set: NodeSet) =>
  [...set.slots()].map((s) => snapshot.nodes.bySlot(s)?.name);
const node = (name: string, labels: Record<string, string> = {}, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
  ...extra,
});

describe('buildSnapshot from the real-world Node fixtures', async () => {
  const objects = await loadTopologyPaths([fixtures('nodes')]);
  const snapshot = buildSnapshot(objects, { now: 1_700_000_000_000, version: 7 });

  it('keys cluster-scoped Nodes by name even when a namespace is set, the later duplicate winning', () => {
    assert.equal(snapshot.version, 7);
    assert.equal(snapshot.nodes.count, 5);
    assert.equal(snapshot.nodes.get('nameValue')?.name, 'nameValue');
    assert.equal(snapshot.nodes.get('qa-mig-worker-gpu-a100')?.labels['nvidia.com/mig-1g.5gb.count'], '3');
  });

  it('reads GPU Feature Discovery labels and allocatable in milli-units', () => {
    const t4 = snapshot.nodes.get('qa-mig-worker-gpu-1');
    assert.ok(t4);
    assert.equal(t4.labels['nvidia.com/gpu.memory'], '15360');
    assert.equal(t4.allocatable.cpu, 32_000);
    assert.equal(t4.allocatable['nvidia.com/gpu'], 2_000);
    assert.equal(t4.allocatable.memory, 123560520 * 1024 * 1000);
    assert.deepEqual(t4.addresses, ['10.51.0.4', 'qa-mig-worker-gpu-1']);
    assert.deepEqual(names(snapshot, snapshot.nodes.withLabelValue('nvidia.com/gpu.product', 'Tesla-T4')), [
      'qa-mig-worker-gpu-1',
    ]);
    assert.deepEqual([...snapshot.nodes.labelValues('nvidia.com/gpu.product').keys()].sort(), [
      'NVIDIA-A100-SXM4-40GB',
      'Tesla-T4',
    ]);
    assert.equal(snapshot.nodes.withLabel('nvidia.com/gpu.present').size, 2);
  });

  it('leaves cordoned nodes out of schedulable, and groups nodes by their NoSchedule/NoExecute taints', () => {
    assert.equal(snapshot.nodes.get('nameValue')?.unschedulable, true);
    assert.deepEqual(names(snapshot, snapshot.nodes.all().andNot(snapshot.nodes.schedulable())), ['nameValue']);
    const tainted = snapshot.nodes.taintGroups().find((g) => g.taints.length > 0);
    assert.deepEqual(tainted?.taints, [{ key: 'kwok.x-k8s.io/node', value: 'fake', effect: 'NoSchedule' }]);
    assert.deepEqual(names(snapshot, tainted!.nodes), ['virtual-gpu-node']);
    // The placeholder taint of the round-trip fixture has no valid effect: it is not a taint.
    assert.deepEqual(snapshot.nodes.get('nameValue')?.taints, []);
  });

  it('marks every source synced at the given time', () => {
    assert.deepEqual(snapshot.sources.get('nodes'), {
      name: 'nodes',
      synced: true,
      objects: 5,
      updatedAt: 1_700_000_000_000,
    });
    assert.equal(snapshot.sources.get('etcd')?.synced, true);
    assert.equal(snapshot.sources.size, 9);
  });
});

describe('buildSnapshot from the real-world NodeResourceTopology fixtures', async () => {
  const objects = [...(await loadTopologyPaths([fixtures('nrt')])), node('worker-node-a'), node('worker-node-b')];
  const snapshot = buildSnapshot(objects, { now: 0 });

  it('reads NUMA zones with quantities in milli-units and the deprecated topologyPolicies as attributes', () => {
    const a = snapshot.nodeTopologies.get('worker-node-a');
    assert.deepEqual(a?.attributes, {
      topologyPolicies: 'SingleNUMANodeContainerLevel',
      topologyManagerPolicy: 'single-numa-node',
      topologyManagerScope: 'container',
    });
    assert.deepEqual(a?.zones[1], {
      name: 'node-1',
      capacity: { cpu: 4000, 'example.com/deviceA': 2000, 'example.com/deviceB': 1000 },
      allocatable: { cpu: 3000, 'example.com/deviceA': 2000, 'example.com/deviceB': 1000 },
      available: { cpu: 3000, 'example.com/deviceA': 2000, 'example.com/deviceB': 1000 },
    });
    assert.equal(snapshot.nodeTopologies.get('node1')?.zones.length, 4);
  });

  it('finds the nodes with one zone fitting the whole request, best fit first', () => {
    const fit = snapshot.numa.fit({ cpu: 2000, 'example.com/deviceA': 2000 });
    // a/node-1: 1/3 + 0/2; b/node-0: 1/3 + 1/3.
    assert.deepEqual(fit.ranked, [
      { node: 'worker-node-a', zone: 'node-1', leftover: 1 / 3 },
      { node: 'worker-node-b', zone: 'node-0', leftover: 2 / 3 },
    ]);
    assert.deepEqual(names(snapshot, fit.nodes), ['worker-node-a', 'worker-node-b']);
    assert.deepEqual(
      snapshot.numa.fit({ 'example.com/deviceA': 1000, 'example.com/deviceB': 2000 }).ranked.map((c) => c.node),
      ['worker-node-a'],
    );
    assert.equal(snapshot.numa.fit({ cpu: 4000 }).nodes.size, 0);
  });

  it('memoises per request shape, ignoring zero amounts and key order', () => {
    const first = snapshot.numa.fit({ cpu: 1000, 'example.com/deviceB': 1000 });
    assert.equal(snapshot.numa.fit({ 'example.com/deviceB': 1000, cpu: 1000, memory: 0 }), first);
  });

  it('knows only nodes that have both a Node and a NodeResourceTopology', () => {
    assert.deepEqual(names(snapshot, snapshot.numa.known()).sort(), ['worker-node-a', 'worker-node-b']);
    assert.ok(snapshot.nodeTopologies.has('node1'));
  });
});

describe('buildSnapshot from the other sources', () => {
  it('takes a Service’s zones from its ready endpoints, else from their nodes', () => {
    const slice = (name: string, endpoints: unknown[]): KubeObject => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name, namespace: 'web', labels: { 'kubernetes.io/service-name': 'api' } },
      endpoints,
    });
    const snapshot = buildSnapshot(
      [
        node('n-b', { 'topology.kubernetes.io/zone': 'zone-b' }),
        slice('api-1', [
          { addresses: ['10.0.0.1'], zone: 'zone-a', conditions: { ready: true } },
          { addresses: ['10.0.0.2'], nodeName: 'n-b' },
          { addresses: ['10.0.0.3'], zone: 'zone-c', conditions: { ready: false } },
        ]),
        slice('api-2', [{ addresses: ['10.0.0.4'], nodeName: 'n-unknown' }]),
        {
          ...slice('orphan', [{ addresses: ['10.0.0.5'], zone: 'zone-d' }]),
          metadata: { name: 'orphan', namespace: 'web' },
        },
      ],
      { now: 0 },
    );
    assert.deepEqual(new Map(snapshot.services), new Map([['web/api', new Set(['zone-a', 'zone-b'])]]));
    assert.equal(snapshot.sources.get('endpointSlices')?.objects, 3);
  });

  it('lists control-plane Pods of kube-system only', async () => {
    const [etcdPod] = await loadTopologyPaths([fixtures('etcd/kubescape-regolibrary.kubeadm-etcd-static-pod.yaml')]);
    const other: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'app', namespace: 'default', labels: { tier: 'control-plane' } },
    };
    const snapshot = buildSnapshot(
      [
        etcdPod!,
        other,
        { ...etcdPod!, spec: { nodeName: 'cp-1' }, metadata: { ...etcdPod!.metadata, name: 'etcd-cp-1' } },
      ],
      { now: 0 },
    );
    assert.deepEqual(snapshot.controlPlane, [
      { name: 'etcd-cp-1', component: 'etcd', nodeName: 'cp-1' },
      { name: 'kube-apiserver-minikube', component: 'etcd' },
    ]);
  });

  it('reads namespace labels', () => {
    const snapshot = buildSnapshot(
      [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ml', labels: { team: 'ml' } } }],
      { now: 0 },
    );
    assert.deepEqual(snapshot.namespaces.get('ml'), { team: 'ml' });
  });

  it('measures distances from a NetworkTopology, links symmetric unless said otherwise', () => {
    const network = (name: string, links: unknown[], status?: unknown): KubeObject => ({
      apiVersion: 'topogate.dev/v1alpha1',
      kind: 'NetworkTopology',
      metadata: { name },
      spec: { links },
      ...(status ? { status } : {}),
    });
    const snapshot = buildSnapshot(
      [
        network('aaa-other', []),
        network(
          'default',
          [
            { from: 'a', to: 'b', rttMs: 0.9 },
            { from: 'a', to: 'c', rttMs: 1.4 },
            { from: 'c', to: 'd', rttMs: 7, symmetric: false },
            { from: 'a', to: 'e', rttMs: 'fast' },
          ],
          { observedAt: '2026-12-01T10:00:00Z' },
        ),
      ],
      { now: 0 },
    );
    const model = snapshot.network;
    assert.ok(model);
    assert.equal(model.name, 'default');
    assert.equal(model.domainLabel, 'topology.kubernetes.io/zone');
    assert.equal(model.observedAt, Date.UTC(2026, 11, 1, 10));
    assert.equal(model.rttMs('b', 'a'), 0.9);
    assert.equal(model.rttMs('c', 'c'), 0);
    assert.equal(model.rttMs('c', 'd'), 7);
    assert.equal(model.rttMs('d', 'c'), undefined);
    assert.equal(model.rttMs('a', 'e'), undefined);
    assert.deepEqual(model.nearest('a'), [
      { domain: 'a', rttMs: 0 },
      { domain: 'b', rttMs: 0.9 },
      { domain: 'c', rttMs: 1.4 },
    ]);
    assert.deepEqual(model.within('a', 1), new Set(['a', 'b']));
    assert.equal(model.within('a', 1), model.within('a', 1));
    assert.deepEqual(model.within('zz', 5), new Set(['zz']));
  });

  it('knows the etcd leader only when exactly one member claims it', () => {
    const etcd = (members: unknown[]): KubeObject => ({
      apiVersion: 'topogate.dev/v1alpha1',
      kind: 'EtcdCluster',
      metadata: { name: 'default' },
      status: { members },
    });
    const one = buildSnapshot(
      [
        etcd([
          { name: 'e1', nodeName: 'cp-1', isLeader: true, peerRttMs: { e2: 0.4 } },
          { name: 'e2', isLeader: false },
        ]),
      ],
      { now: 0 },
    );
    assert.deepEqual(one.etcd.leader, { name: 'e1', nodeName: 'cp-1', isLeader: true, peerRttMs: { e2: 0.4 } });
    assert.equal(one.etcd.members.length, 2);
    const two = buildSnapshot(
      [
        etcd([
          { name: 'e1', isLeader: true },
          { name: 'e2', isLeader: true },
        ]),
      ],
      { now: 0 },
    );
    assert.equal(two.etcd.leader, undefined);
  });

  it('ignores kinds the model does not read, and reports objects without a name', () => {
    const snapshot = buildSnapshot(
      [
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' } },
        { apiVersion: 'v1', kind: 'Node', metadata: {} },
      ],
      { now: 0 },
    );
    assert.equal(snapshot.nodes.count, 0);
    assert.equal(snapshot.sources.get('nodes')?.error, 'Node without metadata.name ignored');
  });
});

describe('buildSnapshot on untrusted input', () => {
  const kinds = [
    ['v1', 'Node'],
    ['v1', 'Namespace'],
    ['v1', 'Pod'],
    ['topology.node.k8s.io/v1alpha2', 'NodeResourceTopology'],
    ['discovery.k8s.io/v1', 'EndpointSlice'],
    ['topogate.dev/v1alpha1', 'NetworkTopology'],
    ['topogate.dev/v1alpha1', 'EtcdCluster'],
  ] as const;
  const field = fc.oneof(fc.anything(), fc.array(fc.anything()), fc.dictionary(fc.string(), fc.anything()));

  it('never throws, whatever the fields hold, and the snapshot answers', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            kind: fc.constantFrom(...kinds),
            metadata: fc.oneof(
              field,
              fc.record({ name: fc.oneof(fc.string(), field), namespace: field, labels: field, annotations: field }),
            ),
            spec: field,
            status: field,
            zones: field,
            endpoints: field,
            attributes: field,
            topologyPolicies: field,
          }),
          { maxLength: 8 },
        ),
        (objects) => {
          const snapshot = buildSnapshot(
            objects.map(({ kind, ...rest }) => ({ ...rest, apiVersion: kind[0], kind: kind[1] }) as KubeObject),
            { now: 0 },
          );
          snapshot.numa.fit({ cpu: 1000 });
          snapshot.network?.nearest('a');
          assert.ok(snapshot.nodes.count <= objects.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
