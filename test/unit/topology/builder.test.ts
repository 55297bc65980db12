import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { KubeObject } from '../../../src/kube/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { TopologyBuilder, type WatchEventType } from '../../../src/topology/builder.ts';
import { TOPOLOGY_SOURCES } from '../../../src/topology/kinds.ts';
import type { SourceName, TopologySnapshot } from '../../../src/topology/model.ts';
import type { NodeSet } from '../../../src/topology/nodeset.ts';
import { networkTopology } from '../../fixtures/network-topology.ts';

const ZONE = 'topology.kubernetes.io/zone';

function node(
  name: string,
  labels: Record<string, string>,
  extra: { unschedulable?: boolean; taint?: string; resourceVersion?: string } = {},
): KubeObject {
  const spec: Record<string, unknown> = {};
  if (extra.unschedulable) spec.unschedulable = true;
  if (extra.taint) spec.taints = [{ key: extra.taint, effect: 'NoSchedule' }];
  const metadata = extra.resourceVersion ? { name, labels, resourceVersion: extra.resourceVersion } : { name, labels };
  return { apiVersion: 'v1', kind: 'Node', metadata, spec, status: { allocatable: { cpu: '4' } } };
}

function nrt(name: string, cpus: readonly number[]): KubeObject {
  return {
    apiVersion: 'topology.node.k8s.io/v1alpha2',
    kind: 'NodeResourceTopology',
    metadata: { name },
    zones: cpus.map((cpu, i) => ({
      name: `node-${i}`,
      type: 'Node',
      resources: [{ name: 'cpu', capacity: 8, allocatable: 8, available: cpu }],
    })),
  };
}

function slice(name: string, service: string, nodes: readonly string[]): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace: 'web', labels: { 'kubernetes.io/service-name': service } },
    endpoints: nodes.map((nodeName, i) => ({ addresses: [`10.0.0.${i}`], nodeName })),
  };
}

/** Everything a decision can read, by node name rather than slot: two snapshots of the same objects agree. */
function describe_(snapshot: TopologySnapshot) {
  const names = (set: NodeSet) => [...set.slots()].map((s) => snapshot.nodes.bySlot(s)?.name).sort();
  const nodes = [...snapshot.nodes.all().slots()].map((s) => snapshot.nodes.bySlot(s)!);
  const labels: Record<string, Record<string, unknown>> = {};
  for (const key of new Set(nodes.flatMap((n) => Object.keys(n.labels)))) {
    labels[key] = { all: names(snapshot.nodes.withLabel(key)) };
    for (const [value, set] of snapshot.nodes.labelValues(key)) labels[key]![value] = names(set);
  }
  return {
    count: snapshot.nodes.count,
    nodes: nodes.map((n) => ({ ...n, slot: 0 })).sort((a, b) => (a.name < b.name ? -1 : 1)),
    slotsAgree: nodes.every((n) => snapshot.nodes.get(n.name)?.slot === n.slot),
    labels,
    schedulable: names(snapshot.nodes.schedulable()),
    taints: snapshot.nodes
      .taintGroups()
      .map((g) => ({ taints: g.taints, nodes: names(g.nodes) }))
      .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
    numa: [1000, 3000, 6000].map((cpu) => {
      const fit = snapshot.numa.fit({ cpu });
      return { ranked: fit.ranked, nodes: names(fit.nodes) };
    }),
    known: names(snapshot.numa.known()),
    services: [...snapshot.services].map(([k, v]) => [k, [...v].sort()]).sort(),
    objects: [...snapshot.sources.values()].map((s) => s.objects),
  };
}

describe('TopologyBuilder', () => {
  it('publishes a new, larger version per change and leaves earlier snapshots as they were', () => {
    const builder = new TopologyBuilder({ sources: TOPOLOGY_SOURCES });
    builder.replace('nodes', [node('a', { [ZONE]: 'z1' }), node('b', { [ZONE]: 'z2' })], 1);
    const first = builder.publish();
    assert.equal(first.version, 1);
    assert.equal(builder.publish(), first, 'nothing changed: the same snapshot');

    builder.apply('nodes', 'MODIFIED', node('a', { [ZONE]: 'z2' }, { unschedulable: true }), 2);
    builder.apply('nodes', 'DELETED', node('b', {}), 2);
    const second = builder.publish();
    assert.equal(second.version, 2);
    assert.deepEqual([...first.nodes.labelValues(ZONE).keys()].sort(), ['z1', 'z2']);
    assert.equal(first.nodes.schedulable().size, 2);
    assert.equal(first.nodes.get('b')?.name, 'b');
    assert.deepEqual([...second.nodes.labelValues(ZONE).keys()], ['z2']);
    assert.equal(second.nodes.schedulable().size, 0);
    assert.equal(second.nodes.get('b'), undefined);
    assert.equal(second.sources.get('nodes')?.objects, 1);
    assert.equal(second.sources.get('nodes')?.updatedAt, 2);
  });

  it('keeps a node in its slot and gives a deleted node’s slot to the next new node', () => {
    const builder = new TopologyBuilder({ sources: ['nodes'] });
    builder.replace('nodes', [node('a', {}), node('b', {}), node('c', {})], 0);
    const slotOfB = builder.publish().nodes.get('b')!.slot;
    builder.apply('nodes', 'MODIFIED', node('a', { x: '1' }), 0);
    builder.apply('nodes', 'DELETED', node('b', {}), 0);
    builder.apply('nodes', 'ADDED', node('d', {}), 0);
    const snapshot = builder.publish();
    assert.equal(snapshot.nodes.get('d')!.slot, slotOfB);
    assert.deepEqual([...snapshot.nodes.all().slots()], [0, 1, 2]);
  });

  it('skips an object whose resourceVersion it already has', () => {
    const builder = new TopologyBuilder({ sources: ['nodes'] });
    builder.replace('nodes', [node('a', {}, { resourceVersion: '5' })], 0);
    const first = builder.publish();
    builder.replace('nodes', [node('a', { changed: 'but same version' }, { resourceVersion: '5' })], 1);
    assert.equal(builder.publish().nodes, first.nodes);
    builder.apply('nodes', 'MODIFIED', node('a', { x: 'y' }, { resourceVersion: '6' }), 2);
    assert.equal(builder.publish().nodes.get('a')?.labels.x, 'y');
  });

  it('does not publish for an update that changes nothing a decision reads', () => {
    const builder = new TopologyBuilder({ sources: ['nodes'] });
    builder.replace('nodes', [node('a', { k: 'v' })], 0);
    const first = builder.publish();
    builder.apply(
      'nodes',
      'MODIFIED',
      { ...node('a', { k: 'v' }), metadata: { name: 'a', labels: { k: 'v' }, annotations: { heartbeat: 'now' } } },
      5,
    );
    assert.equal(builder.changed, false);
    assert.equal(builder.publish(), first);
  });

  it('drops on relist what the list no longer holds', () => {
    const builder = new TopologyBuilder({ sources: ['nodes', 'nodeResourceTopologies'] });
    builder.replace('nodes', [node('a', {}), node('b', {})], 0);
    builder.replace('nodeResourceTopologies', [nrt('a', [4]), nrt('b', [4])], 0);
    builder.publish();
    builder.replace('nodes', [node('b', {})], 1);
    builder.replace('nodeResourceTopologies', [nrt('b', [4])], 1);
    const snapshot = builder.publish();
    assert.deepEqual([...snapshot.nodeTopologies.keys()], ['b']);
    assert.equal(snapshot.nodes.count, 1);
    assert.deepEqual(
      snapshot.numa.fit({ cpu: 1000 }).ranked.map((c) => c.node),
      ['b'],
    );
  });

  it('takes a list page by page: each page at once, what the list did not bring only at its end', () => {
    const builder = new TopologyBuilder({ sources: ['nodes'] });
    builder.replace('nodes', [node('a', {}, { resourceVersion: '1' }), node('b', {}, { resourceVersion: '1' })], 0);
    builder.publish();
    const listing = builder.startList('nodes');
    builder.listPage(listing, [node('a', { tier: 'new' }, { resourceVersion: '2' })], 1);
    let snapshot = builder.publish();
    assert.deepEqual(snapshot.nodes.get('a')?.labels, { tier: 'new' }, 'a page shows at the next publish');
    assert.equal(snapshot.nodes.count, 2, 'b stays until the list ends without it');
    assert.equal(snapshot.sources.get('nodes')?.updatedAt, 1);
    builder.listPage(listing, [node('c', {}, { resourceVersion: '2' })], 2);
    builder.endList(listing, 3);
    snapshot = builder.publish();
    assert.deepEqual([...snapshot.nodes.all().slots()].map((slot) => snapshot.nodes.bySlot(slot)?.name).sort(), [
      'a',
      'c',
    ]);
    assert.deepEqual(snapshot.sources.get('nodes'), { name: 'nodes', synced: true, objects: 2, updatedAt: 3 });
  });

  it('ignores the pages and the end of a list superseded by a later one, or failed', () => {
    const builder = new TopologyBuilder({ sources: ['nodes'] });
    const older = builder.startList('nodes');
    const newer = builder.startList('nodes');
    builder.listPage(newer, [node('a', { v: 'new' }, { resourceVersion: '5' })], 1);
    // The older list's page is late: it must not undo what the newer one brought, nor its end drop a.
    builder.listPage(older, [node('a', { v: 'old' }, { resourceVersion: '4' }), node('z', {})], 2);
    builder.endList(older, 2);
    let snapshot = builder.publish();
    assert.deepEqual(snapshot.nodes.get('a')?.labels, { v: 'new' });
    assert.equal(snapshot.nodes.get('z'), undefined);
    assert.equal(snapshot.sources.get('nodes')?.synced, false, 'only the newer list’s end syncs the source');
    builder.fail('nodes', 'connection reset', 3);
    builder.listPage(newer, [node('b', {})], 4);
    builder.endList(newer, 4);
    snapshot = builder.publish();
    assert.equal(snapshot.nodes.get('b'), undefined, 'a failed list is over');
    assert.equal(snapshot.sources.get('nodes')?.synced, false);
    assert.equal(snapshot.sources.get('nodes')?.error, 'connection reset');
  });

  it('reports each source’s state: unsynced, synced, disabled, stale, and current again after a relist', () => {
    const builder = new TopologyBuilder({ sources: ['nodes', 'networkTopologies'] });
    assert.deepEqual(builder.publish().sources.get('nodes'), { name: 'nodes', synced: false, objects: 0 });
    builder.replace('nodes', [node('a', {})], 10);
    builder.disable('networkTopologies', 'the NetworkTopology CRD is not installed', 10);
    let snapshot = builder.publish();
    assert.deepEqual(snapshot.sources.get('nodes'), { name: 'nodes', synced: true, objects: 1, updatedAt: 10 });
    assert.equal(snapshot.sources.get('networkTopologies')?.disabled, 'the NetworkTopology CRD is not installed');

    builder.fail('nodes', 'watch closed', 20);
    builder.fail('nodes', 'watch closed', 30);
    snapshot = builder.publish();
    assert.deepEqual(snapshot.sources.get('nodes'), {
      name: 'nodes',
      synced: true,
      objects: 1,
      updatedAt: 10,
      staleSince: 20,
      error: 'watch closed',
    });
    assert.equal(snapshot.nodes.count, 1, 'the last good model stays');

    builder.fail('nodes', 'gone', 40);
    builder.replace('nodes', [node('a', {})], 50);
    assert.deepEqual(builder.publish().sources.get('nodes'), {
      name: 'nodes',
      synced: true,
      objects: 1,
      updatedAt: 50,
    });
  });

  it('refreshes the time of the sources in contact only, publishing that they are current', () => {
    const builder = new TopologyBuilder({ sources: ['nodes', 'namespaces', 'etcd', 'networkTopologies'] });
    builder.replace('nodes', [node('a', {})], 10);
    builder.replace('namespaces', [], 10);
    builder.replace('etcd', [], 10);
    builder.fail('etcd', 'no member answered', 20);
    builder.disable('networkTopologies', 'CRD not installed', 10);
    const before = builder.publish();
    builder.refresh(500);
    assert.equal(builder.changed, true);
    const after = builder.publish();
    assert.ok(after.version > before.version);
    assert.deepEqual(
      [...after.sources.values()].map((s) => [s.name, s.updatedAt]),
      [
        ['nodes', 500],
        ['namespaces', 500],
        ['etcd', 10],
        ['networkTopologies', 10],
      ],
    );
    assert.equal(after.nodes, before.nodes, 'the model itself is shared');
  });

  it('moves a Service’s zones when the node of an endpoint changes zone or goes', () => {
    const builder = new TopologyBuilder({ sources: TOPOLOGY_SOURCES });
    builder.replace('nodes', [node('a', { [ZONE]: 'z1' }), node('b', { [ZONE]: 'z2' })], 0);
    builder.replace('endpointSlices', [slice('api-1', 'api', ['a']), slice('api-2', 'api', ['b'])], 0);
    assert.deepEqual(builder.publish().services.get('web/api'), new Set(['z1', 'z2']));
    builder.apply('nodes', 'MODIFIED', node('a', { [ZONE]: 'z3' }), 1);
    assert.deepEqual(builder.publish().services.get('web/api'), new Set(['z3', 'z2']));
    builder.apply('nodes', 'DELETED', node('b', {}), 2);
    assert.deepEqual(builder.publish().services.get('web/api'), new Set(['z3']));
    builder.apply('endpointSlices', 'DELETED', slice('api-1', 'api', []), 3);
    builder.apply('endpointSlices', 'DELETED', slice('api-2', 'api', []), 3);
    assert.equal(builder.publish().services.has('web/api'), false);
  });

  it('stops counting a Pod that loses its control-plane label', () => {
    const pod = (tier: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'etcd-a', namespace: 'kube-system', labels: { tier, component: 'etcd' } },
    });
    const builder = new TopologyBuilder({ sources: ['controlPlanePods'] });
    builder.apply('controlPlanePods', 'ADDED', pod('control-plane'), 0);
    assert.equal(builder.publish().controlPlane.length, 1);
    builder.apply('controlPlanePods', 'MODIFIED', pod('other'), 1);
    const snapshot = builder.publish();
    assert.equal(snapshot.controlPlane.length, 0);
    assert.equal(snapshot.sources.get('controlPlanePods')?.objects, 0);
  });

  it('follows the etcd leader and the network across updates', () => {
    const etcd = (leader: string): KubeObject => ({
      apiVersion: 'topogate.dev/v1alpha1',
      kind: 'EtcdCluster',
      metadata: { name: 'default' },
      status: { members: ['e1', 'e2'].map((name) => ({ name, isLeader: name === leader })) },
    });
    const builder = new TopologyBuilder({ sources: TOPOLOGY_SOURCES });
    builder.apply('etcd', 'ADDED', etcd('e1'), 0);
    assert.equal(builder.publish().etcd.leader?.name, 'e1');
    builder.apply('etcd', 'MODIFIED', etcd('e2'), 1);
    const snapshot = builder.publish();
    assert.equal(snapshot.etcd.leader?.name, 'e2');
    assert.equal(snapshot.network, undefined);
    builder.apply(
      'networkTopologies',
      'ADDED',
      networkTopology({ name: 'n', links: [{ from: 'a', to: 'b', rttMs: 2 }] }),
      2,
    );
    assert.equal(builder.publish().network?.rttMs('b', 'a'), 2);
  });
});

type Op =
  | { kind: 'node'; type: WatchEventType; name: string; zone: string; gpu: boolean; cordoned: boolean; taint: boolean }
  | { kind: 'nrt'; type: WatchEventType; name: string; cpus: number[] }
  | { kind: 'slice'; type: WatchEventType; name: string; service: string; nodes: string[] }
  | { kind: 'publish' };

const nodeName = fc.constantFrom('n0', 'n1', 'n2', 'n3', 'n4', 'n5');
const eventType = fc.constantFrom<WatchEventType>('ADDED', 'MODIFIED', 'DELETED');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('node' as const),
    type: eventType,
    name: nodeName,
    zone: fc.constantFrom('z1', 'z2', 'z3'),
    gpu: fc.boolean(),
    cordoned: fc.boolean(),
    taint: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('nrt' as const),
    type: eventType,
    name: nodeName,
    cpus: fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('slice' as const),
    type: eventType,
    name: fc.constantFrom('s0', 's1', 's2'),
    service: fc.constantFrom('api', 'db'),
    nodes: fc.array(nodeName, { maxLength: 3 }),
  }),
  fc.constant({ kind: 'publish' as const }),
);

function objectOf(o: Exclude<Op, { kind: 'publish' }>): [SourceName, KubeObject] {
  switch (o.kind) {
    case 'node':
      return [
        'nodes',
        node(
          o.name,
          { [ZONE]: o.zone, ...(o.gpu ? { 'nvidia.com/gpu.product': 'Tesla-T4' } : {}) },
          { unschedulable: o.cordoned, ...(o.taint ? { taint: 'dedicated' } : {}) },
        ),
      ];
    case 'nrt':
      return ['nodeResourceTopologies', nrt(o.name, o.cpus)];
    case 'slice':
      return ['endpointSlices', slice(o.name, o.service, o.nodes)];
  }
}

describe('TopologyBuilder against buildSnapshot', () => {
  it('any sequence of events gives the snapshot a full build of the resulting objects gives, and earlier snapshots stay as built', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const builder = new TopologyBuilder({ sources: TOPOLOGY_SOURCES });
        for (const source of TOPOLOGY_SOURCES) builder.replace(source, [], 0);
        const live = new Map<string, KubeObject>();
        const published: [TopologySnapshot, ReturnType<typeof describe_>][] = [];
        for (const o of ops) {
          if (o.kind === 'publish') {
            // Asking now fills the memo the next snapshot derives its NUMA answers from.
            const snapshot = builder.publish();
            const expected = describe_(buildSnapshot([...live.values()], { now: 0 }));
            assert.deepEqual(describe_(snapshot), expected);
            published.push([snapshot, expected]);
            continue;
          }
          const [source, object] = objectOf(o);
          const key = `${source}/${object.metadata!.name}`;
          builder.apply(source, o.type, object, 0);
          if (o.type === 'DELETED') live.delete(key);
          else live.set(key, object);
        }
        const final = builder.publish();
        assert.deepEqual(describe_(final), describe_(buildSnapshot([...live.values()], { now: 0 })));
        for (const [snapshot, expected] of published) assert.deepEqual(describe_(snapshot), expected);
      }),
      { numRuns: 150 },
    );
  });
});
