// The control plane measured (collection.md §2) on a real one with three etcd
// members, the scheduler and the controller manager leading by Lease:
// `topogate controlplane --output json` shows every figure; serve writes
// ControlPlane/default and its etcd leader follows a stopped leader; findings
// react to provoked conditions (members sharing a zone, a leader far from etcd's,
// fail-opens); a Deployment's Pods go through the webhook and carry its warnings.

import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlPlaneStatus } from '../../src/ports/controlplane.ts';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { clusterEndpoints } from './harness/endpoints.ts';
import { coreApi, createEtcdPods, createNodes, kubectl, kubectlOk, metricSamples } from './harness/kube.ts';
import type { Topogate } from './harness/topogate.ts';
import { applyAll, installTopogateCrds, registerWebhook, startTopogate, topogateCli } from './harness/topogate.ts';
import { httpsGet, waitFor } from './harness/wait.ts';

const policies = fileURLToPath(new URL('./fixtures/policies/', import.meta.url));
const zoneKey = 'topology.kubernetes.io/zone';
const namespace = 'controlplane-e2e';
/** web-zones (test/e2e/fixtures/policies/) places `tier: web` Pods of `team-*` namespaces. */
const teamNamespace = 'team-controlplane';
/**
 * etcd's election (1 s timeout), the topology's 1 s etcd scrape and the 5 s write interval make about 7 s;
 * on this loaded 2-core machine the scrape's 900 ms timeout often passes, and 12.6-13.1 s were measured.
 */
const leaderMoveBoundMs = 30_000;

describe('the control plane, measured', { timeout: 600_000 }, () => {
  let cluster: Cluster;
  let topogate: Topogate;
  let schedulerMetrics: string;

  const cli = (window = '6s') =>
    topogateCli([
      'controlplane',
      '--kubeconfig',
      cluster.kubeconfig,
      ...cluster.etcdMetricsUrls.flatMap((url) => ['--etcd-metrics', url]),
      '--scheduler-metrics',
      schedulerMetrics,
      '--window',
      window,
      '--output',
      'json',
    ]).then((stdout) => JSON.parse(stdout) as ControlPlaneStatus);

  const written = async (): Promise<ControlPlaneStatus | undefined> => {
    const answer = await kubectl(cluster, ['get', 'controlplane', 'default', '-o', 'json']);
    return answer.code === 0 ? (JSON.parse(answer.stdout) as { status?: ControlPlaneStatus }).status : undefined;
  };

  const until = async (what: string, check: (status: ControlPlaneStatus) => boolean, timeoutMs = 60_000) => {
    let last: ControlPlaneStatus | undefined;
    await waitFor(
      async () => {
        last = await written();
        return last !== undefined && check(last);
      },
      { what, timeoutMs, intervalMs: 500 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nlast ControlPlane status: ${JSON.stringify(last, null, 2)}`);
    });
    return last!;
  };

  /**
   * Resolves to what `measuring` resolves to, creating a Pod every 700 ms until then: the window has
   * admissions, scheduling attempts and binds to measure, wherever it starts (the CLI syncs first).
   */
  const withPods = async <T>(prefix: string, measuring: Promise<T>): Promise<{ result: T; created: number }> => {
    const api = coreApi(cluster);
    let done = false;
    let created = 0;
    const creating = (async () => {
      while (!done) {
        await api.createNamespacedPod({
          namespace,
          body: {
            metadata: { name: `${prefix}-${created}`, labels: { app: prefix } },
            spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
          },
        });
        created++;
        await sleep(700);
      }
    })();
    try {
      return { result: await measuring, created };
    } finally {
      done = true;
      await creating;
    }
  };

  before(async () => {
    cluster = await startCluster({ etcdMembers: 3, etcdFsync: true });
    schedulerMetrics = clusterEndpoints(cluster).scheduler.metricsURL;
    const api = coreApi(cluster);
    await createNodes(api, [
      { name: 'cp-0', labels: { [zoneKey]: 'zone-a' } },
      { name: 'cp-1', labels: { [zoneKey]: 'zone-b' } },
      { name: 'cp-2', labels: { [zoneKey]: 'zone-c' } },
      // The scheduler's and controller manager's Lease holders are `<hostname>_<uuid>`: this Node places them.
      { name: hostname(), labels: { [zoneKey]: 'zone-a' } },
      { name: 'worker-a', labels: { [zoneKey]: 'zone-a' } },
      { name: 'worker-b', labels: { [zoneKey]: 'zone-b' } },
    ]);
    // etcd's static Pods put each member on cp-<i>.
    await createEtcdPods(api, cluster.etcd);
    await kubectlOk(cluster, ['create', 'namespace', 'topogate-system']);
    await kubectlOk(cluster, ['create', 'namespace', namespace]);
    await kubectlOk(cluster, ['create', 'namespace', teamNamespace]);
    await installTopogateCrds(cluster);
    await applyAll(cluster, [
      {
        apiVersion: 'topogate.dev/v1alpha1',
        kind: 'NetworkTopology',
        metadata: { name: 'default' },
        spec: {
          domainLabel: zoneKey,
          links: [
            { from: 'zone-a', to: 'zone-b', rttMs: 0.5 },
            { from: 'zone-a', to: 'zone-c', rttMs: 0.6 },
            { from: 'zone-b', to: 'zone-c', rttMs: 0.7 },
            { from: 'zone-a', to: 'zone-far', rttMs: 9 },
            { from: 'zone-b', to: 'zone-far', rttMs: 9 },
            { from: 'zone-c', to: 'zone-far', rttMs: 9 },
          ],
        },
      },
    ]);
    topogate = await startTopogate({
      cluster,
      policies,
      etcdMetrics: cluster.etcdMetricsUrls,
      // Decided at admission (never deferred behind a scheduling gate): what this file checks is the admission answer.
      serveArgs: ['--scheduler-metrics', schedulerMetrics, '--controlplane-interval', '2s', '--defer', 'never'],
    });
    await registerWebhook(cluster, topogate);
  });

  after(async () => {
    await topogate?.stop();
    await cluster?.stop();
  });

  test('`topogate controlplane --output json` shows every figure, with plausible values', async () => {
    const { result: status } = await withPods('measured', cli('8s'));
    assert.ok(status.windowSeconds >= 6 && status.windowSeconds <= 12, `window ${status.windowSeconds}`);
    const ms = (value: number | undefined, what: string, max = 5_000) => {
      assert.ok(
        value !== undefined && value > 0 && value < max,
        `${what}: ${value}\n${JSON.stringify(status, null, 2)}`,
      );
    };
    ms(status.apiServer?.writeP99Ms, 'API server write p99');
    ms(status.apiServer?.webhook.admissionP99Ms, "topogate's admission p99", 2_000);
    assert.equal(status.apiServer?.webhook.failOpen5m, 0);
    assert.ok((status.apiServer?.webhook.requests5m ?? 0) >= 4, 'the Pods made in the window went through the webhook');
    assert.equal(status.etcd?.members.length, 3);
    const leaders = status.etcd!.members.filter((m) => m.isLeader);
    assert.deepEqual(
      leaders.map((m) => m.name),
      [status.etcd?.leader],
    );
    for (const member of status.etcd!.members) {
      ms(member.walFsyncP99Ms, `${member.name} WAL fsync p99`);
      ms(member.backendCommitP99Ms, `${member.name} backend commit p99`);
      assert.match(member.nodeName ?? '', /^cp-[012]$/);
      assert.ok(member.zone?.startsWith('zone-'));
      assert.equal(Object.keys(member.peerRttMs).length, 2, `${member.name} has its two peers' RTT`);
    }
    assert.equal(status.scheduler?.leader?.nodeName, hostname());
    assert.equal(status.scheduler?.leader?.zone, 'zone-a');
    assert.ok(status.scheduler?.leader?.holder.startsWith(`${hostname()}_`));
    ms(status.scheduler?.attemptP99Ms, 'scheduling attempt p99');
    ms(status.scheduler?.bindP99Ms, 'bind p99');
    assert.equal(status.controllerManager?.leader?.nodeName, hostname());
    ms(status.watch?.e2eP50Ms, 'watch e2e p50', 2_000);
    ms(status.watch?.e2eP99Ms, 'watch e2e p99', 5_000);
    assert.ok(status.watch!.e2eP99Ms! >= status.watch!.e2eP50Ms!);
    assert.ok((status.watch?.samples ?? 0) >= 5);
    assert.ok(Array.isArray(status.findings));
    for (const [source, age] of Object.entries(status.sources))
      assert.equal(age?.error, undefined, `${source}: ${age?.error}`);
  });

  test('serve writes ControlPlane/default with the same figures, and serves them as metrics', async () => {
    const status = await until('ControlPlane/default with every figure', (s) =>
      Boolean(
        s.apiServer?.writeP99Ms && s.etcd?.leader && s.scheduler?.leader && s.controllerManager?.leader && s.watch,
      ),
    );
    assert.equal(status.etcd?.members.length, 3);
    const metrics = (await httpsGet(`${topogate.url}/metrics`, { ca: topogate.caPem })).body;
    const leading = metricSamples(metrics, 'topogate_controlplane_etcd_leader').filter((sample) => sample.value === 1);
    assert.equal(leading.length, 1);
    assert.ok((metricSamples(metrics, 'topogate_controlplane_apiserver_write_p99_seconds')[0]?.value ?? 0) > 0);
    const placed = metricSamples(metrics, 'topogate_controlplane_leader').map((sample) => sample.labels.component);
    assert.deepEqual(placed.sort(), ['etcd', 'kube-controller-manager', 'kube-scheduler']);
  });

  test("a Deployment's Pods, made by the controller manager, go through the webhook and carry its warnings", async () => {
    await applyAll(cluster, [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'warned', namespace: teamNamespace },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'warned' } },
          template: {
            // web-zones applies (zone-b, spread); nowhere-warn matches, cannot be met, and warns.
            metadata: { labels: { app: 'warned', tier: 'web', want: 'nowhere-warn' } },
            spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
          },
        },
      },
    ]);
    const api = coreApi(cluster);
    const pods = async () =>
      (await api.listNamespacedPod({ namespace: teamNamespace, labelSelector: 'app=warned' })).items;
    await waitFor(async () => (await pods()).length === 2, { what: "the Deployment's Pods", timeoutMs: 60_000 });
    for (const pod of await pods()) {
      const annotations = pod.metadata?.annotations ?? {};
      assert.equal(pod.metadata?.ownerReferences?.[0]?.kind, 'ReplicaSet');
      assert.equal(annotations['topogate.dev/policies'], 'web-zones');
      assert.match(annotations['topogate.dev/warnings'] ?? '', /^policy nowhere-warn: /m);
      assert.equal(pod.spec?.topologySpreadConstraints?.[0]?.topologyKey, zoneKey);
    }
  });

  test('a finding reacts: two etcd members moved into one zone, and back', async () => {
    await kubectlOk(cluster, ['label', 'node', 'cp-1', `${zoneKey}=zone-a`, '--overwrite']);
    const shared = await until('the shared-zone finding', (s) => s.findings.some((f) => /share zone zone-a/.test(f)));
    assert.match(
      shared.findings[0] ?? '',
      /^etcd members \S+ and \S+ share zone zone-a: one zone outage loses quorum$/,
    );
    await kubectlOk(cluster, ['label', 'node', 'cp-1', `${zoneKey}=zone-b`, '--overwrite']);
    await until('no shared-zone finding', (s) => !s.findings.some((f) => /share zone/.test(f)));
  });

  test("a finding reacts: the scheduler's leader moved to a zone 9 ms from the etcd leader's", async () => {
    await kubectlOk(cluster, ['label', 'node', hostname(), `${zoneKey}=zone-far`, '--overwrite']);
    const far = await until('the far-leader finding', (s) => s.findings.some((f) => /leader .* is 9 ms from/.test(f)));
    assert.ok(
      far.findings.some((f) =>
        f.startsWith(`the scheduler's leader (${hostname()}, zone zone-far) is 9 ms from the etcd leader's zone`),
      ),
      far.findings.join('\n'),
    );
    await kubectlOk(cluster, ['label', 'node', hostname(), `${zoneKey}=zone-a`, '--overwrite']);
    await until('no far-leader finding', (s) => !s.findings.some((f) => /is 9 ms from/.test(f)));
  });

  test('a finding reacts: Pods created while topogate is down are counted as fail-opens', async () => {
    await topogate.stop();
    try {
      const { result: status } = await withPods('unmutated', cli('6s'));
      assert.ok((status.apiServer?.webhook.failOpen5m ?? 0) >= 3, JSON.stringify(status.apiServer));
      assert.match(
        status.findings.join('\n'),
        /the API server failed open on pods\.topogate\.dev \d+ times in \d+ s: Pods were placed without policies/,
      );
    } finally {
      await topogate.start();
    }
  });

  test(`stopping the etcd leader moves ControlPlane's etcd.leader within ${leaderMoveBoundMs / 1000} s`, async () => {
    const before = await until('an etcd leader', (s) => s.etcd?.leader !== undefined);
    const ids = await Promise.all(
      cluster.etcdMetricsUrls.map(async (url) => {
        const sample = metricSamples(await (await fetch(url)).text(), 'etcd_server_id').find((s) => s.value === 1);
        return sample?.labels.server_id;
      }),
    );
    const index = ids.indexOf(before.etcd!.leader);
    assert.ok(index >= 0, `leader ${before.etcd?.leader} among ${ids.join(', ')}`);
    const stoppedAt = Date.now();
    await cluster.stopEtcdMember(index);
    try {
      // A stopping etcd hands its leadership over before it exits, so a round can see the new leader while
      // the old one still answers: the move is done when the stopped member is also left out.
      const after = await until(
        'a new etcd leader, the stopped member left out',
        (s) => s.etcd?.leader !== undefined && s.etcd.leader !== before.etcd!.leader && s.etcd.members.length === 2,
        leaderMoveBoundMs,
      );
      const movedMs = Date.now() - stoppedAt;
      process.stderr.write(`etcd.leader moved from ${before.etcd?.leader} to ${after.etcd?.leader} in ${movedMs} ms\n`);
      assert.ok(
        !after.etcd!.members.some((member) => member.name === before.etcd!.leader),
        'the stopped member is out',
      );
    } finally {
      await cluster.startEtcdMember(index);
    }
  });
});
