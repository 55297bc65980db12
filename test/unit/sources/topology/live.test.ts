import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { KubeObject } from '../../../../src/kube/types.ts';
import { buildSnapshot } from '../../../../src/topology/build.ts';
import { TOPOLOGY_SOURCES } from '../../../../src/topology/kinds.ts';
import type { TopologySnapshot } from '../../../../src/topology/model.ts';
import { EtcdScraper } from '../../../../src/sources/topology/etcd-scraper.ts';
import { createFileTopology } from '../../../../src/sources/topology/file-topology.ts';
import { LiveModel } from '../../../../src/sources/topology/live-model.ts';
import { ASSUMED_TTL_MS } from '../../../../src/topology/assumed.ts';
import { createTopologyMetrics } from '../../../../src/sources/topology/metrics.ts';
import { sourceReadiness } from '../../../../src/sources/topology/readiness.ts';

const log = pino({ level: 'silent' });
const node = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } });

/** The next published snapshot that satisfies `test`; fails the test after 5 s instead of hanging. */
function next(model: LiveModel, test: (s: TopologySnapshot) => boolean): Promise<TopologySnapshot> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no such snapshot published')), 5000);
    const stop = model.subscribe((snapshot) => {
      if (!test(snapshot)) return;
      clearTimeout(timer);
      stop();
      resolve(snapshot);
    });
  });
}

describe('LiveModel', () => {
  it('publishes one snapshot for the events of one turn, and counts them', async () => {
    const registry = new Registry();
    const model = new LiveModel(['nodes'], createTopologyMetrics(registry), log);
    const published: number[] = [];
    model.subscribe((s) => published.push(s.version));
    const first = model.current.version;
    model.replace('nodes', [node('a')]);
    model.apply('nodes', 'ADDED', node('b'));
    model.apply('nodes', 'ADDED', node('c'));
    assert.equal(model.current.version, first, 'nothing is published before the turn ends');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(published, [first + 1]);
    assert.equal(model.current.nodes.count, 3);
    const text = await registry.metrics();
    assert.match(text, /topogate_topology_source_events_total\{source="nodes"\} 2/);
    assert.match(text, /topogate_topology_source_objects\{source="nodes"\} 3/);
    assert.match(text, /topogate_topology_source_synced\{source="nodes"\} 1/);
    assert.match(text, /topogate_topology_event_to_snapshot_seconds_count 3/);
    assert.match(text, /topogate_topology_source_last_event_age_seconds\{source="nodes"\} \d/);
  });

  it('publishes no snapshot for a list page alone (each would be compiled), one at the list’s end', async () => {
    const model = new LiveModel(['nodes'], createTopologyMetrics(new Registry()), log);
    const published: number[] = [];
    model.subscribe((s) => published.push(s.nodes.count));
    const listing = model.startList('nodes');
    listing.page([node('a'), node('b')]);
    await new Promise((resolve) => setImmediate(resolve));
    listing.page([node('c')]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(published, [], 'no snapshot while the list goes on');
    listing.end();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(published, [3]);
    assert.equal(model.current.sources.get('nodes')?.synced, true);
  });
});

describe('LiveModel occupancy', () => {
  it('publishes no snapshot for a bind; occupancy() has it at once', async () => {
    const model = new LiveModel(['nodes', 'pods'], createTopologyMetrics(new Registry()), log);
    model.replace('nodes', [node('a')]);
    model.replace('pods', []);
    await new Promise((resolve) => setImmediate(resolve));
    const published: number[] = [];
    model.subscribe((s) => published.push(s.version));
    const before = model.occupancy();
    model.apply('pods', 'ADDED', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns' },
      spec: { nodeName: 'a', containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] },
    });
    assert.deepEqual(model.occupancy().requested('a'), { cpu: 1000 });
    assert.ok(model.occupancy().version > before.version);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(published, [], 'no snapshot, so no recompile');
  });
});

describe('LiveModel assumed Pods', () => {
  it('counts an admitted Pod at once and lets it go when its time is up, by its own timer', (context) => {
    context.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    const model = new LiveModel(['nodes', 'pods'], createTopologyMetrics(new Registry()), log);
    model.replace('nodes', [node('a')]);
    model.replace('pods', []);
    model.assume({ workload: 'ns/Deployment/web', heldTo: { zone: 'a' }, requests: { cpu: 1000 } });
    const heldInA = () => model.occupancy().pendingUnder('zone')?.get('a')?.pods;
    assert.equal(heldInA(), 1);
    context.mock.timers.tick(ASSUMED_TTL_MS - 1);
    assert.equal(heldInA(), 1, 'not yet');
    context.mock.timers.tick(1);
    assert.equal(heldInA(), undefined);
    model.stop();
  });
});

describe('sourceReadiness', () => {
  const snapshot = (sources: readonly object[]): TopologySnapshot => ({
    ...buildSnapshot([], { now: 0 }),
    sources: new Map(sources.map((s) => [(s as { name: never }).name, s as never])),
  });

  it('waits for every source not disabled, and names what is degraded once ready', () => {
    assert.deepEqual(
      sourceReadiness(
        snapshot([
          { name: 'nodes', synced: false, objects: 0 },
          { name: 'etcd', synced: true, objects: 1 },
        ]),
        0,
        1000,
      ),
      {
        ready: false,
        reason: 'topology: waiting for the first sync of nodes',
      },
    );
    assert.deepEqual(
      sourceReadiness(
        snapshot([
          { name: 'nodes', synced: true, objects: 1, staleSince: 1000, error: 'HTTP 503' },
          { name: 'etcd', synced: true, objects: 1, staleSince: 9000, error: 'x' },
          {
            name: 'networkTopologies',
            synced: false,
            objects: 0,
            disabled: 'CRD networktopologies.topogate.dev not installed',
          },
        ]),
        10_000,
        5000,
      ),
      {
        ready: true,
        reason:
          'topology degraded: nodes out of contact for 9s (HTTP 503); networkTopologies disabled (CRD networktopologies.topogate.dev not installed)',
      },
    );
    assert.deepEqual(sourceReadiness(buildSnapshot([], { now: 0 }), 0, 1000), { ready: true });
  });
});

describe('createFileTopology', () => {
  it('serves the demo cluster as one snapshot that never goes stale', async () => {
    const registry = new Registry();
    const provider = await createFileTopology(
      [fileURLToPath(new URL('../../../../examples/cluster/', import.meta.url))],
      {
        log,
        registry,
      },
    );
    const snapshot = provider.current();
    assert.equal(snapshot.nodes.count, 13);
    assert.deepEqual(provider.readiness(), { ready: true });
    for (const status of snapshot.sources.values()) assert.equal(status.updatedAt, undefined);
    assert.equal(snapshot.sources.size, TOPOLOGY_SOURCES.length);
    assert.match(await registry.metrics(), /topogate_topology_source_objects\{source="nodes"\} 13/);
    await provider.stop();
  });

  it('rejects naming the file that is wrong', async () => {
    await assert.rejects(createFileTopology(['/nonexistent/topology'], { log, registry: new Registry() }), {
      message: '/nonexistent/topology: no such file or directory',
    });
  });
});

describe('EtcdScraper', () => {
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.close()));

  /** An etcd metrics page on loopback whose leadership the test flips. */
  async function member(id: string, state: { leader: boolean; up: boolean }): Promise<string> {
    const server = createServer((request, response) => {
      if (!state.up) return void response.writeHead(503).end();
      response.end(
        `etcd_server_id{server_id="${id}"} 1\netcd_server_is_leader ${state.leader ? 1 : 0}\netcd_server_has_leader 1\n`,
      );
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('finds the leader, follows a failover, and keeps the last members when none answers', async () => {
    const a = { leader: true, up: true };
    const b = { leader: false, up: true };
    const urls = [await member('aa', a), await member('bb', b)];
    const model = new LiveModel(['nodes', 'etcd'], createTopologyMetrics(new Registry()), log);
    const scraper = new EtcdScraper(urls, model, () => [], createTopologyMetrics(new Registry()), log, {
      intervalMs: 20,
      // A member that is down answers 503 at once; a timeout would only say how loaded the machine is.
      timeoutMs: 10_000,
    });
    try {
      scraper.start();
      // Members are placed on Nodes: nothing is published before the Nodes have synced.
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(model.current.sources.get('etcd')?.synced, false);
      model.replace('nodes', []);
      let snapshot = await next(model, (s) => s.etcd.leader !== undefined);
      assert.equal(snapshot.etcd.leader?.name, 'aa');
      assert.equal(snapshot.etcd.members[0]?.endpoint, `${urls[0]}/metrics`);
      assert.equal(snapshot.sources.get('etcd')?.synced, true);

      Object.assign(a, { up: false });
      Object.assign(b, { leader: true });
      snapshot = await next(model, (s) => s.etcd.leader?.name === 'bb');
      assert.deepEqual(
        snapshot.etcd.members.map((m) => m.name),
        ['bb'],
      );

      Object.assign(b, { up: false });
      snapshot = await next(model, (s) => s.sources.get('etcd')?.staleSince !== undefined);
      assert.equal(snapshot.etcd.leader?.name, 'bb', 'the last known members stay');
      assert.match(snapshot.sources.get('etcd')?.error ?? '', /HTTP 503/);
      assert.equal(scraper.objects()[0]?.kind, 'EtcdCluster');
    } finally {
      scraper.stop();
    }
  });
});
