// The live topology model against a real control plane (3 etcd members,
// kube-apiserver, kube-scheduler on loopback): node changes reach the next
// snapshot, uninstalled CRDs disable their sources with one log line, the
// etcd leader is found and followed through a failover, and an API server
// restart is survived.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test, type TestContext } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { TopologySnapshot } from '../../src/topology/model.ts';
import { KubeConfig } from '@kubernetes/client-node';
import { watchPolicyObjects } from '../../src/sources/policies/objects.ts';
import { createKubeTopology, type KubeTopology } from '../../src/sources/topology/kube.ts';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { coreApi, createEtcdPods, createNodes, kubectlOk, metricSamples } from './harness/kube.ts';
import { repoRoot } from './harness/versions.ts';
import { waitFor } from './harness/wait.ts';

const ZONE = 'topology.kubernetes.io/zone';

describe('the live topology model', { timeout: 300_000 }, () => {
  let cluster: Cluster;
  let topology: KubeTopology;
  const registry = new Registry();
  const logLines: { msg: string; source?: string }[] = [];

  /**
   * Resolves with the first snapshot (current or next) that passes `check`; fails after `timeoutMs`.
   * Says how long after `since` (when the change was made) the model had it.
   */
  function until(
    t: TestContext,
    what: string,
    check: (s: TopologySnapshot) => boolean,
    since: number,
    timeoutMs = 10_000,
  ): Promise<TopologySnapshot> {
    return new Promise((resolve, reject) => {
      const done = (snapshot: TopologySnapshot) => {
        clearTimeout(timer);
        unsubscribe();
        t.diagnostic(`${what}: in the model ${Math.round(performance.now() - since)} ms after the change was made`);
        resolve(snapshot);
      };
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new Error(`${what}: not in the model after ${timeoutMs} ms`));
      }, timeoutMs);
      const unsubscribe = topology.subscribe((snapshot) => check(snapshot) && done(snapshot));
      if (check(topology.current())) done(topology.current());
    });
  }

  before(async () => {
    cluster = await startCluster({ etcdMembers: 3 });
    const logs = new PassThrough();
    logs.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        logLines.push(JSON.parse(line) as { msg: string });
    });
    topology = createKubeTopology({
      kubeconfig: cluster.kubeconfig,
      etcdMetrics: cluster.etcdMetricsUrls,
      keepObjects: true,
      log: pino({ level: 'info' }, logs),
      registry,
      timing: { backoffMs: 200, maxBackoffMs: 2000, absentRecheckMs: 1000 },
      etcdScrape: { intervalMs: 200, timeoutMs: 500 },
    });
    await topology.ready(60_000);
  });
  after(async () => {
    await topology?.stop();
    await cluster?.stop();
  });

  test('sources whose CRD is not installed are disabled with one log line each, and do not hold readiness', async () => {
    const readiness = topology.readiness();
    assert.equal(readiness.ready, true);
    assert.match(
      readiness.reason ?? '',
      /nodeResourceTopologies disabled \(CRD noderesourcetopologies\.topology\.node\.k8s\.io not installed\)/,
    );
    assert.match(readiness.reason ?? '', /networkTopologies disabled/);
    // Let a few quiet re-checks pass: they must not log again.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    for (const source of ['nodeResourceTopologies', 'networkTopologies']) {
      assert.equal(logLines.filter((l) => l.source === source && /disabled/.test(l.msg)).length, 1, source);
    }
    const snapshot = topology.current();
    assert.equal(snapshot.sources.get('nodes')?.synced, true);
    assert.equal(snapshot.sources.get('etcd')?.synced, true);
  });

  test('a Node created, relabelled, cordoned and deleted shows up in the next snapshots', async (t) => {
    const api = coreApi(cluster);
    let since = performance.now();
    await createNodes(api, [{ name: 'live-a', labels: { [ZONE]: 'zone-a', 'nvidia.com/gpu.product': 'Tesla-T4' } }]);
    let snapshot = await until(t, 'created', (s) => s.nodes.get('live-a') !== undefined, since);
    assert.equal(
      snapshot.nodes.withLabelValue('nvidia.com/gpu.product', 'Tesla-T4').has(snapshot.nodes.get('live-a')!.slot),
      true,
    );
    // It came by a watch event: what the informer cached was slimmed on the way.
    const cached = topology
      .objects()
      .get('nodes')
      ?.find((n) => n.metadata?.name === 'live-a');
    assert.equal(cached?.metadata?.labels?.['nvidia.com/gpu.product'], 'Tesla-T4');
    assert.equal(cached?.metadata?.managedFields, undefined);

    since = performance.now();
    await kubectlOk(cluster, ['label', 'node', 'live-a', `${ZONE}=zone-b`, '--overwrite']);
    snapshot = await until(t, 'relabelled', (s) => s.nodes.get('live-a')?.labels[ZONE] === 'zone-b', since);
    assert.equal(snapshot.nodes.withLabelValue(ZONE, 'zone-a').size, 0);

    since = performance.now();
    await kubectlOk(cluster, ['cordon', 'live-a']);
    snapshot = await until(t, 'cordoned', (s) => s.nodes.get('live-a')?.unschedulable === true, since);
    assert.equal(snapshot.nodes.schedulable().has(snapshot.nodes.get('live-a')!.slot), false);

    since = performance.now();
    await kubectlOk(cluster, ['delete', 'node', 'live-a']);
    snapshot = await until(t, 'deleted', (s) => s.nodes.get('live-a') === undefined, since);
    assert.equal(snapshot.nodes.withLabel(ZONE).size, 0);
  });

  test('a CRD installed later enables its source', async (t) => {
    await kubectlOk(cluster, ['apply', '-f', join(repoRoot, 'manifests/crds/networktopologies.yaml')]);
    await kubectlOk(cluster, [
      'wait',
      '--for=condition=Established',
      'crd/networktopologies.topogate.dev',
      '--timeout=30s',
    ]);
    const network = `apiVersion: topogate.dev/v1alpha1
kind: NetworkTopology
metadata: {name: default}
spec:
  domainLabel: ${ZONE}
  links: [{from: zone-a, to: zone-b, rttMs: 0.9}]
`;
    const since = performance.now();
    await kubectlOk(cluster, ['apply', '-f', '-'], network);
    const snapshot = await until(t, 'NetworkTopology', (s) => s.network?.rttMs('zone-b', 'zone-a') === 0.9, since);
    assert.equal(snapshot.sources.get('networkTopologies')?.disabled, undefined);
    assert.equal(snapshot.sources.get('networkTopologies')?.synced, true);
  });

  test('SchedulingPolicy objects have an informer of their own, apart from the model: listed once their CRD is installed', async () => {
    assert.equal(topology.current().sources.has('schedulingPolicies' as never), false);
    const config = new KubeConfig();
    config.loadFromFile(cluster.kubeconfig);
    const timing = { absentRecheckMs: 500 };
    const objects = watchPolicyObjects({ config, log: pino({ level: 'silent' }), registry: new Registry(), timing });
    try {
      await waitFor(async () => objects.status().disabled !== undefined, {
        what: 'the CRD missing',
        timeoutMs: 10_000,
      });
      await kubectlOk(cluster, ['apply', '-f', join(repoRoot, 'manifests/crds/schedulingpolicies.yaml')]);
      await kubectlOk(cluster, [
        'wait',
        '--for=condition=Established',
        'crd/schedulingpolicies.topogate.dev',
        '--timeout=30s',
      ]);
      await kubectlOk(cluster, ['apply', '-f', join(repoRoot, 'policies/etcd-adjacent.yaml')]);
      await waitFor(async () => objects.objects().length === 1, {
        what: 'the SchedulingPolicy listed',
        timeoutMs: 30_000,
      });
      assert.deepEqual(objects.status(), { synced: true, inContact: true });
      const [policy] = objects.objects();
      assert.equal(policy?.metadata?.name, 'etcd-adjacent');
      assert.equal((policy?.spec as { priority?: number } | undefined)?.priority, 20);
      assert.equal(topology.current().sources.has('schedulingPolicies' as never), false, 'not a source of the model');
    } finally {
      await objects.stop();
    }
  });

  test('the etcd leader is known, placed on its node, and followed when it stops', async (t) => {
    const api = coreApi(cluster);
    const since = performance.now();
    await createNodes(
      api,
      [0, 1, 2].map((i) => ({ name: `cp-${i}` })),
    );
    await createEtcdPods(api, cluster.etcd);
    let snapshot = await until(
      t,
      'etcd placed',
      (s) => s.etcd.members.length === 3 && s.etcd.members.every((m) => m.nodeName) && s.etcd.leader !== undefined,
      since,
    );
    const leaders = await Promise.all(
      cluster.etcdMetricsUrls.map(
        async (url) => metricSamples(await (await fetch(url)).text(), 'etcd_server_is_leader')[0]?.value,
      ),
    );
    const leaderIndex = leaders.indexOf(1);
    assert.equal(snapshot.etcd.leader?.nodeName, `cp-${leaderIndex}`);
    assert.equal(snapshot.controlPlane.filter((p) => p.component === 'etcd').length, 3);

    const stopped = performance.now();
    await cluster.stopEtcdMember(leaderIndex);
    try {
      // The stopped member drops out (it may hand over leadership before it goes).
      snapshot = await until(
        t,
        'new etcd leader',
        (s) => s.etcd.leader !== undefined && s.etcd.members.length === 2,
        stopped,
        30_000,
      );
      assert.notEqual(snapshot.etcd.leader?.nodeName, `cp-${leaderIndex}`);
    } finally {
      await cluster.startEtcdMember(leaderIndex);
    }
  });

  test('an API server restart is survived: the last model stays, then the watches relist and follow again', async (t) => {
    const api = coreApi(cluster);
    const nodesBefore = topology.current().nodes.count;
    await cluster.restartApiServer();
    assert.equal(topology.current().nodes.count, nodesBefore, 'the last good model is kept');
    const since = performance.now();
    await createNodes(api, [{ name: 'after-restart', labels: { [ZONE]: 'zone-c' } }]);
    const snapshot = await until(
      t,
      'node after restart',
      (s) => s.nodes.get('after-restart') !== undefined,
      since,
      60_000,
    );
    await until(t, 'nodes current again', (s) => s.sources.get('nodes')?.staleSince === undefined, since, 60_000);
    assert.equal(snapshot.sources.get('nodes')?.synced, true);
    const relists = metricSamples(await registry.metrics(), 'topogate_topology_source_relists_total').find(
      (s) => s.labels.source === 'nodes',
    );
    assert.ok((relists?.value ?? 0) >= 1, `nodes relisted: ${JSON.stringify(relists)}`);
    assert.equal(topology.readiness().ready, true);
  });

  test('topogate snapshot prints what the model holds, loadable as files', async () => {
    const { snapshot } = await import('../../src/cli/snapshot.ts');
    const { parseObjects } = await import('../../src/sources/topology/files.ts');
    const { buildSnapshot } = await import('../../src/topology/build.ts');
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk) => (text += chunk));
    const code = await snapshot.run(
      ['--kubeconfig', cluster.kubeconfig, ...cluster.etcdMetricsUrls.flatMap((url) => ['--etcd-metrics', url])],
      {
        stdout,
        stderr: new PassThrough(),
        stdin: new PassThrough(),
        cwd: repoRoot,
      },
    );
    assert.equal(code, 0);
    const replayed = buildSnapshot(parseObjects(text, 'snapshot.yaml'), { now: 0 });
    const live = topology.current();
    assert.deepEqual(
      [...replayed.nodes.all().slots()].map((s) => replayed.nodes.bySlot(s)!.name).sort(),
      [...live.nodes.all().slots()].map((s) => live.nodes.bySlot(s)!.name).sort(),
    );
    assert.equal(replayed.etcd.members.length, 3);
    assert.equal(replayed.network?.rttMs('zone-a', 'zone-b'), 0.9);
  });
});
