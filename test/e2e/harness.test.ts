// The control plane itself, before any webhook: it starts, the real scheduler
// binds Pods to fake Nodes, the real controller manager makes a Deployment's Pods, it survives an API server restart and the loss of
// one etcd member of three, and it leaves nothing behind.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Cluster, ClusterState } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import type { ClusterEndpoints } from './harness/endpoints.ts';
import { boundNode, coreApi, createNodes, kubectl, kubectlOk, metricSamples } from './harness/kube.ts';
import { isAlive } from './harness/process.ts';
import { repoRoot } from './harness/versions.ts';
import { httpsGet, waitFor } from './harness/wait.ts';

describe('a three-member control plane', { timeout: 240_000 }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster({ etcdMembers: 3 });
  });
  after(async () => {
    await cluster?.stop();
  });

  test('serves the version it was built at, through the written kubeconfig', async () => {
    const version = JSON.parse(await kubectlOk(cluster, ['version', '-o', 'json'])) as {
      serverVersion: { gitVersion: string };
    };
    assert.equal(version.serverVersion.gitVersion, 'v1.37.2');
    assert.match(await kubectlOk(cluster, ['get', 'namespace', 'default', '-o', 'name']), /^namespace\/default$/m);
  });

  test('the scheduler binds a Pod to the one fake Node its nodeSelector allows', async () => {
    const api = coreApi(cluster);
    await createNodes(api, [
      { name: 'node-a', labels: { 'topology.kubernetes.io/zone': 'zone-a' } },
      { name: 'node-b', labels: { 'topology.kubernetes.io/zone': 'zone-b' } },
      { name: 'node-c', labels: { 'topology.kubernetes.io/zone': 'zone-b' }, unschedulable: true },
    ]);
    for (const name of ['to-b-1', 'to-b-2']) {
      await api.createNamespacedPod({
        namespace: 'default',
        body: {
          metadata: { name },
          spec: {
            nodeSelector: { 'topology.kubernetes.io/zone': 'zone-b' },
            containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
          },
        },
      });
    }
    assert.equal(await boundNode(api, 'default', 'to-b-1'), 'node-b');
    assert.equal(await boundNode(api, 'default', 'to-b-2'), 'node-b');
  });

  test("the controller manager makes a Deployment's ReplicaSet and Pods, and the scheduler binds them", async () => {
    const api = coreApi(cluster);
    await kubectlOk(
      cluster,
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              nodeSelector: { 'topology.kubernetes.io/zone': 'zone-b' },
              containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
            },
          },
        },
      }),
    );
    await waitFor(
      async () => (await api.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' })).items.length === 2,
      {
        what: "the Deployment's Pods",
        timeoutMs: 60_000,
      },
    );
    const pods = (await api.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' })).items;
    for (const pod of pods) {
      assert.equal(pod.metadata?.ownerReferences?.[0]?.kind, 'ReplicaSet');
      // ServiceAccount admission is on: the controller manager made the namespace's `default` account.
      assert.equal(pod.spec?.serviceAccountName, 'default');
      assert.equal(await boundNode(api, 'default', pod.metadata?.name ?? ''), 'node-b');
    }
  });

  test('the scheduler and the controller manager hold their Leases in kube-system', async () => {
    for (const name of ['kube-scheduler', 'kube-controller-manager']) {
      const holder = await kubectlOk(cluster, [
        '-n',
        'kube-system',
        'get',
        'lease',
        name,
        '-o',
        'jsonpath={.spec.holderIdentity}',
      ]);
      // The identity starts with the host's name, as a Node's name would on a real control-plane machine.
      assert.ok(holder.startsWith(`${hostname()}_`), `${name} holder ${holder}`);
    }
  });

  test('each etcd member serves its metrics, and exactly one is leader', async () => {
    assert.equal(cluster.etcdMetricsUrls.length, 3);
    const leaders = await Promise.all(
      cluster.etcdMetricsUrls.map(async (url) => {
        const samples = metricSamples(await (await fetch(url)).text(), 'etcd_server_is_leader');
        assert.equal(samples.length, 1, url);
        return samples[0]?.value;
      }),
    );
    assert.deepEqual(leaders.toSorted(), [0, 0, 1]);
  });

  test('writes go on with one etcd member down, and the member rejoins', async () => {
    await cluster.stopEtcdMember(2);
    await kubectlOk(cluster, ['create', 'configmap', 'while-member-down', '--from-literal=k=v']);
    await cluster.startEtcdMember(2);
    assert.match(
      await kubectlOk(cluster, ['get', 'configmap', 'while-member-down', '-o', 'jsonpath={.data.k}']),
      /^v$/,
    );
  });

  test('an API server restart keeps the objects and the kubeconfig', async () => {
    const before = cluster.components.find((c) => c.name === 'kube-apiserver')?.pid;
    await cluster.restartApiServer();
    const after = cluster.components.find((c) => c.name === 'kube-apiserver')?.pid;
    assert.notEqual(after, before);
    assert.ok(before !== undefined && !isAlive(before));
    assert.match(await kubectlOk(cluster, ['get', 'pod', 'to-b-1', '-o', 'jsonpath={.spec.nodeName}']), /^node-b$/);
  });

  test('the API server reports its own metrics to the admin', async () => {
    const metrics = await cluster.get('/metrics');
    assert.equal(metrics.status, 200);
    assert.ok(metricSamples(metrics.body, 'apiserver_request_total').length > 0);
  });

  test('stop() ends every process and removes the temp dir', async () => {
    const pids = cluster.components.map((c) => c.pid);
    await cluster.stop();
    assert.deepEqual(pids.filter(isAlive), []);
    assert.equal(existsSync(cluster.dir), false);
  });
});

describe('npm run cluster', { timeout: 180_000 }, () => {
  const run = promisify(execFile);
  const scratch = mkdtempSync(join(tmpdir(), 'topogate-cluster-cli-'));
  const stateFile = join(scratch, 'state.json');
  const cli = (...args: string[]) =>
    run(process.execPath, ['test/e2e/harness/cli.ts', ...args, '--state', stateFile], { cwd: repoRoot });
  after(async () => {
    await cli('down').catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
  });

  test('up prints `export KUBECONFIG=` last, and kubectl works with it', async () => {
    const { stdout } = await cli('up');
    const last = stdout.trimEnd().split('\n').at(-1) ?? '';
    const match = /^export KUBECONFIG=(\S+)$/.exec(last);
    assert.ok(match?.[1], `last line: ${last}`);
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as ClusterState;
    assert.equal(state.kubeconfig, match[1]);
    assert.equal(state.etcd.length, 1);
    const listed = await kubectl({ kubectl: state.kubectl, kubeconfig: match[1] }, ['get', 'namespaces', '-o', 'name']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /namespace\/kube-system/);
  });

  test('status --output json gives every metrics URL, and each answers', async () => {
    const { stdout } = await cli('status', '--output', 'json');
    const status = JSON.parse(stdout) as ClusterEndpoints;
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as ClusterState;
    assert.equal(status.kubeconfig, state.kubeconfig);
    assert.equal(status.apiServer, state.server);
    assert.deepEqual(
      status.etcd.map((m) => m.name),
      ['etcd-0'],
    );
    const etcd = await fetch(status.etcd[0]?.metricsURL ?? '');
    assert.ok(metricSamples(await etcd.text(), 'etcd_server_is_leader').length === 1);
    assert.equal(status.etcd[0]?.clientURL, state.etcd[0]?.clientUrl);
    const scraped = [
      [`${status.apiServer}/metrics`, 'apiserver_request_duration_seconds_count'],
      // Exported from the start; the attempt histograms only once a Pod was scheduled.
      [status.scheduler.metricsURL, 'scheduler_pending_pods'],
      [status.controllerManager.metricsURL, 'workqueue_adds_total'],
    ] as const;
    for (const [url, metric] of scraped) {
      // The scheduler and controller manager serve a certificate the cluster CA signed, and let the admin read /metrics.
      const answer = await httpsGet(url, state.admin);
      assert.equal(answer.status, 200, url);
      assert.ok(metricSamples(answer.body, metric).length > 0, `${url} has no ${metric}`);
    }
  });

  test('a second up refuses while the first cluster runs', async () => {
    await assert.rejects(
      cli('up'),
      (error: { code?: number; stderr?: string }) => error.code === 1 && /already up/.test(error.stderr ?? ''),
    );
  });

  test('down stops every process, removes the temp dir and the state file', async () => {
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as ClusterState;
    await cli('down');
    assert.deepEqual(state.components.map((c) => c.pid).filter(isAlive), []);
    assert.equal(existsSync(state.dir), false);
    assert.equal(existsSync(stateFile), false);
    assert.match((await cli('down')).stdout, /no cluster is up/);
  });

  test('a bad flag is a usage error', async () => {
    await assert.rejects(
      cli('up', '--etcd-members', '2'),
      (error: { code?: number; stderr?: string }) => error.code === 2 && /must be 1 or 3/.test(error.stderr ?? ''),
    );
  });
});
