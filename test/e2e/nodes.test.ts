// Real nodes: three kubelets (containerd, kube-proxy) in their own network namespaces, in zones zone-a,
// zone-b and zone-c, and topogate installed on them by helm as a user would, image loaded with
// `load-image`. One cluster for the whole file (a cluster with nodes takes about a minute to start).
//
// Root only (network namespaces); `.ci/run` installs iproute2, nftables and util-linux and builds the nodes'
// binaries with `npm run cluster -- build --nodes 3` first (docs/e2e.md, "Real nodes").

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { buildImage, defaultTag } from '../../image/image.ts';
import type { Cluster, RealNodes } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { setDelay } from './harness/delay.ts';
import { startHelm, type Helm } from './harness/helm.ts';
import { kubectl, kubectlOk, metricSamples } from './harness/kube.ts';
import { webImage } from './harness/nodeconfig.ts';
import { saveImage } from './harness/nodeimages.ts';
import { holdKubelet, importImage } from './harness/nodes.ts';
import { repoRoot } from './harness/versions.ts';
import { waitFor } from './harness/wait.ts';

type Json = Record<string, any>;
/** What the API server made of a dry run: topogate's annotations, the zones it required, and kubectl's warnings. */
type DryRun = {
  policies: string | undefined;
  zones: string[];
  deferred: string | undefined;
  warnings: string;
  annotations: Record<string, string>;
};

const chart = join(repoRoot, 'charts', 'topogate');
const namespace = 'topogate';
const release = 'topogate';
const apps = 'nodes-e2e';

describe('real nodes, with topogate installed by helm', { timeout: 2_400_000 }, () => {
  let cluster: Cluster;
  let nodes: RealNodes;
  let helm: Helm;
  const k = (args: readonly string[], stdin?: string) => kubectlOk(cluster, args, stdin);
  const getJson = async (args: readonly string[]): Promise<Json> => JSON.parse(await k([...args, '-o', 'json']));

  const podsOf = async (ns: string, selector: string): Promise<Json[]> =>
    (await getJson(['get', 'pods', '-n', ns, '-l', selector])).items as Json[];
  const running = (pod: Json) =>
    pod.status?.phase === 'Running' &&
    (pod.status?.conditions ?? []).some((c: Json) => c.type === 'Ready' && c.status === 'True');

  const zoneIn = (zone: string) => ({ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] });
  const policy = (name: string, nodeLabels: Json) =>
    JSON.stringify({
      apiVersion: 'topogate.dev/v1alpha1',
      kind: 'SchedulingPolicy',
      metadata: { name },
      spec: { match: { namespaces: [apps], podSelector: { matchLabels: { tier: 'web' } } }, rules: { nodeLabels } },
    });
  const latencyPolicy = (name: string, maxRttMs: number) =>
    JSON.stringify({
      apiVersion: 'topogate.dev/v1alpha1',
      kind: 'SchedulingPolicy',
      metadata: { name },
      spec: {
        match: { namespaces: [apps], podSelector: { matchLabels: { tier: 'near' } } },
        rules: { latency: { to: { zone: 'zone-a' }, maxRttMs, mode: 'Required' } },
      },
    });
  const webDeployment = (name: string, replicas: number, tier = 'web') =>
    JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: apps },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name, tier } },
          spec: {
            containers: [{ name: 'web', image: webImage, imagePullPolicy: 'Never', ports: [{ containerPort: 8080 }] }],
          },
        },
      },
    });
  /**
   * A Pod created with --dry-run=server: what topogate decided, without running it. `deferred` is the reason
   * when the webhook left the placement to the placement controller behind its scheduling gate.
   */
  const dryRunPod = async (name: string, tier = 'web'): Promise<DryRun> => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: apps, labels: { tier } },
      spec: { containers: [{ name: 'web', image: webImage, imagePullPolicy: 'Never' }] },
    };
    const answer = await kubectl(cluster, ['create', '--dry-run=server', '-o', 'json', '-f', '-'], JSON.stringify(pod));
    assert.equal(answer.code, 0, answer.stderr);
    const created = JSON.parse(answer.stdout);
    const terms =
      created.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    const zones = (terms as Json[])
      .flatMap((t) => t.matchExpressions ?? [])
      .filter((e: Json) => e.key === 'topology.kubernetes.io/zone' && e.operator === 'In')
      .flatMap((e: Json) => e.values as string[]);
    const gated = ((created.spec?.schedulingGates ?? []) as Json[]).some((g) => g.name === 'topogate.dev/placement');
    return {
      policies: created.metadata?.annotations?.['topogate.dev/policies'],
      zones: [...new Set(zones)].sort(),
      deferred: gated ? String(created.metadata?.annotations?.['topogate.dev/deferred'] ?? 'gated') : undefined,
      warnings: answer.stderr.trim(),
      annotations: created.metadata?.annotations ?? {},
    };
  };
  /** A dry run the webhook placed itself (a deferral, fine for a Pod, tells nothing about the model): asks again. */
  const placedDryRun = async (name: string, tier = 'web'): Promise<DryRun> => {
    for (const deadline = Date.now() + 60_000; ; await sleep(500)) {
      const answer = await dryRunPod(name, tier);
      if (answer.deferred === undefined) return answer;
      assert.ok(Date.now() < deadline, `the webhook deferred every dry run for a minute: ${answer.deferred}`);
    }
  };
  const nodeReady = async (name: string) =>
    ((await getJson(['get', 'node', name])).status?.conditions ?? []).some(
      (c: Json) => c.type === 'Ready' && c.status === 'True',
    );

  before(async () => {
    cluster = await startCluster({ nodes: 3 });
    assert.ok(cluster.nodes, 'the cluster has nodes');
    nodes = cluster.nodes;
    helm = await startHelm(() => cluster?.kubeconfig);
    const tag = defaultTag();
    await buildImage({ tag, progress: process.stderr });
    const saved = await saveImage(tag);
    try {
      await importImage(nodes, saved.archive);
    } finally {
      saved.remove();
    }
    const [repository, version] = tag.split(':') as [string, string];
    await helm.ok([
      'install',
      release,
      chart,
      '-n',
      namespace,
      '--create-namespace',
      '--set',
      `image.repository=${repository}`,
      '--set',
      `image.tag=${version}`,
      '--set',
      'image.pullPolicy=Never',
      '--set',
      'probe.enabled=true',
      // The default 5 ms budget and 2 s timeout are for a webhook with a core of its own; here three nodes, the
      // control plane and the tests share two cores: an overrun defers the Pod to the placement controller, and
      // a call the API server gives up on is admitted unplaced (failurePolicy Ignore).
      '--set',
      'webhook.budgetMs=100',
      '--set',
      'webhook.timeoutSeconds=10',
    ]);
    await k(['create', 'namespace', apps]);
  });

  after(async () => {
    await cluster?.stop();
    helm?.remove();
  });

  test('every node is Ready in its zone, and runs Pods with bridge addresses', async () => {
    const list = await getJson(['get', 'nodes']);
    const zones = (list.items as Json[]).map((n) => [
      n.metadata.name,
      n.metadata.labels['topology.kubernetes.io/zone'],
    ]);
    assert.deepEqual(zones.sort(), [
      ['node-1', 'zone-a'],
      ['node-2', 'zone-b'],
      ['node-3', 'zone-c'],
    ]);
    await k(['apply', '-f', '-'], webDeployment('web', 3, 'plain'));
    await waitFor(async () => (await podsOf(apps, 'app=web')).filter(running).length === 3, {
      what: 'the web Pods Running',
      timeoutMs: 120_000,
      intervalMs: 1_000,
    });
    for (const pod of await podsOf(apps, 'app=web')) {
      const node = nodes.nodes.find((n) => n.name === pod.spec.nodeName);
      assert.ok(node, `${pod.metadata.name} is on a real node`);
      const [prefix] = node.podCidr.split('.0/24');
      assert.ok(String(pod.status.podIP).startsWith(`${prefix}.`), `${pod.status.podIP} is in ${node.podCidr}`);
    }
  });

  test("the chart's Pods run: webhook replicas Ready behind their Service, a probe on every node, the controller", async () => {
    await waitFor(
      async () =>
        (await podsOf(namespace, 'app.kubernetes.io/component=webhook')).filter(running).length === 2 &&
        (await podsOf(namespace, 'app.kubernetes.io/name=topogate-probe')).filter(running).length === 3,
      { what: "topogate's Pods Running and Ready", timeoutMs: 240_000, intervalMs: 2_000 },
    );
    const probeNodes = (await podsOf(namespace, 'app.kubernetes.io/name=topogate-probe')).map((p) => p.spec.nodeName);
    assert.deepEqual(probeNodes.sort(), ['node-1', 'node-2', 'node-3']);
    // The API server reaches the webhook through its Service (the endpoints' Pod IPs): a policy places a dry run.
    await k(['apply', '-f', '-'], policy('nodes-web', { required: [zoneIn('zone-b')] }));
    await waitFor(async () => (await dryRunPod('probe-web')).policies === 'nodes-web', {
      what: 'a dry-run Pod placed by topogate',
      timeoutMs: 60_000,
      intervalMs: 1_000,
    });
    const lease = await getJson(['get', 'lease', 'topogate-placement', '-n', namespace]);
    assert.ok(lease.spec?.holderIdentity, 'a webhook replica holds the placement controller Lease');
  });

  test('a policy places a Deployment: its Pods run in the zone the policy says', async () => {
    await k(['apply', '-f', '-'], webDeployment('placed', 3));
    await waitFor(async () => (await podsOf(apps, 'app=placed')).filter(running).length === 3, {
      what: 'the placed Deployment Running',
      timeoutMs: 120_000,
      intervalMs: 1_000,
    });
    for (const pod of await podsOf(apps, 'app=placed')) {
      assert.equal(pod.metadata.annotations?.['topogate.dev/policies'], 'nodes-web');
      assert.equal(pod.spec.nodeName, 'node-2', `${pod.metadata.name} runs in zone-b`);
    }
  });

  test('the probes measure the Pod paths: RTTs in NetworkTopology status, and an injected delay in the next decisions', async () => {
    const links = async (): Promise<Json[]> => {
      const answer = await kubectl(cluster, ['get', 'networktopology', 'default', '-o', 'json']);
      return answer.code === 0 ? ((JSON.parse(answer.stdout).status?.links ?? []) as Json[]) : [];
    };
    const rtt = (all: Json[], a: string, b: string) =>
      all.find((l) => (l.from === a && l.to === b) || (l.from === b && l.to === a))?.rttMs as number | undefined;
    // The first writes hold a few samples each, and on a loaded machine a few are slow: wait for the medians.
    let before: Json[] = [];
    await waitFor(
      async () => {
        before = await links();
        const baseline = rtt(before, 'zone-a', 'zone-c');
        return before.length >= 3 && before.every((l) => l.samples >= 20) && baseline !== undefined && baseline < 5;
      },
      { what: 'every zone pair measured, zone-a ↔ zone-c under 5 ms', timeoutMs: 180_000, intervalMs: 2_000 },
    ).catch((error: Error) => assert.fail(`${error.message}; measured: ${JSON.stringify(before)}`));
    const baseline = rtt(before, 'zone-a', 'zone-c');
    await setDelay(nodes.delayer, 'zone-a', 'zone-c', 20);
    try {
      await waitFor(async () => (rtt(await links(), 'zone-a', 'zone-c') ?? 0) >= 15, {
        what: 'the 20 ms delay in NetworkTopology status',
        timeoutMs: 120_000,
        intervalMs: 2_000,
      });
      const after = await links();
      process.stderr.write(
        `zone-a ↔ zone-c: ${baseline} ms, then ${rtt(after, 'zone-a', 'zone-c')} ms with 20 ms added\n`,
      );
      assert.ok((rtt(after, 'zone-a', 'zone-b') ?? 99) < 10, 'zone-a ↔ zone-b is not delayed');
      await k(['apply', '-f', '-'], latencyPolicy('nodes-near-a', 10));
      await waitFor(async () => (await dryRunPod('near-a', 'near')).policies === 'nodes-near-a', {
        what: 'the latency policy in force',
        timeoutMs: 60_000,
        intervalMs: 1_000,
      });
      const zonesAllowed = (await placedDryRun('near-a-2', 'near')).zones;
      assert.ok(zonesAllowed.includes('zone-a') && zonesAllowed.includes('zone-b'), zonesAllowed.join(','));
      assert.ok(!zonesAllowed.includes('zone-c'), `zone-c is 20 ms away: ${zonesAllowed.join(',')}`);
    } finally {
      await setDelay(nodes.delayer, 'zone-a', 'zone-c', 0);
    }
  });

  test('zones derived from measurement: with zone-c 20 ms away, the writer groups node-1 and node-2 apart from node-3', async () => {
    const tiers = async (): Promise<Json[]> => {
      const answer = await kubectl(cluster, ['get', 'networktopology', 'default', '-o', 'json']);
      return answer.code === 0 ? ((JSON.parse(answer.stdout).status?.tiers ?? []) as Json[]) : [];
    };
    const groupsOf = (tier: Json | undefined): string[] =>
      ((tier?.groups ?? []) as Json[]).map((group) => (group.nodes as string[]).join('+')).sort();
    await setDelay(nodes.delayer, 'zone-a', 'zone-c', 20);
    await setDelay(nodes.delayer, 'zone-b', 'zone-c', 20);
    let coarsest: Json | undefined;
    try {
      // The writer derives at most once a minute, from node pairs whose medians must first take in the delay.
      await waitFor(
        async () => {
          [coarsest] = await tiers();
          return groupsOf(coarsest).join() === 'node-1+node-2,node-3';
        },
        { what: 'status.tiers grouping node-1 and node-2 apart from node-3', timeoutMs: 300_000, intervalMs: 5_000 },
      ).catch((error: Error) => assert.fail(`${error.message}; last: ${JSON.stringify(coarsest)}`));
    } finally {
      await setDelay(nodes.delayer, 'zone-a', 'zone-c', 0);
      await setDelay(nodes.delayer, 'zone-b', 'zone-c', 0);
    }
    const threshold = Number(coarsest?.thresholdMs);
    assert.ok(threshold > 1 && threshold < 20, `the gap is between the zones: ${JSON.stringify(coarsest)}`);
  });

  test('a webhook replica deleted during a stream of Pod creations: none failed, none admitted unplaced', async () => {
    const failOpen = async () =>
      metricSamples((await cluster.get('/metrics')).body, 'apiserver_admission_webhook_fail_open_count')
        .filter((s) => s.labels.name?.includes('topogate'))
        .reduce((sum, s) => sum + s.value, 0);
    const failOpenBefore = await failOpen();
    const [victim] = (await podsOf(namespace, 'app.kubernetes.io/component=webhook')).map((p) => p.metadata.name);
    assert.ok(victim);
    const results: DryRun[] = [];
    const errors: string[] = [];
    let deleted: Promise<string> | undefined;
    for (let i = 0; i < 60; i++) {
      if (i === 10) deleted = k(['delete', 'pod', victim, '-n', namespace, '--wait=false']);
      try {
        results.push(await dryRunPod(`stream-${i}`));
      } catch (error) {
        errors.push(String(error));
      }
      await sleep(100);
    }
    await deleted;
    assert.deepEqual(errors, []);
    // Placed by the webhook, or deferred behind the gate for the placement controller: never admitted unplaced.
    const unplaced = results.filter(
      (r) => r.deferred === undefined && (r.policies !== 'nodes-web' || r.zones.join() !== 'zone-b'),
    );
    assert.deepEqual(unplaced, []);
    assert.ok(
      results.some((r) => r.deferred === undefined),
      'the webhook placed some of them itself',
    );
    assert.equal(await failOpen(), failOpenBefore, 'the API server never failed open on topogate');
  });

  test("a node's kubelet killed: the node goes NotReady, its probe Pod unready, and the status is still written", async () => {
    const node = nodes.nodes.find((n) => n.name === 'node-3');
    assert.ok(node);
    await holdKubelet(node, true);
    try {
      await waitFor(async () => !(await nodeReady('node-3')), {
        what: 'node-3 NotReady',
        timeoutMs: 120_000,
        intervalMs: 2_000,
      });
      await waitFor(
        async () => {
          const [pod] = (await podsOf(namespace, 'app.kubernetes.io/name=topogate-probe')).filter(
            (p) => p.spec.nodeName === 'node-3',
          );
          return pod !== undefined && !running(pod);
        },
        { what: "node-3's probe Pod marked not ready", timeoutMs: 60_000, intervalMs: 2_000 },
      );
      // The writer goes on without it: a placement still reads a fresh model.
      const placed = await placedDryRun('after-node-loss');
      assert.equal(placed.policies, 'nodes-web', JSON.stringify(placed));
    } finally {
      await holdKubelet(node, false);
    }
    await waitFor(async () => nodeReady('node-3'), {
      what: 'node-3 Ready again',
      timeoutMs: 120_000,
      intervalMs: 2_000,
    });
  });

  test('helm uninstall leaves nothing of topogate', async () => {
    await k(['delete', 'schedulingpolicy', '--all']);
    await helm.ok(['uninstall', release, '-n', namespace, '--wait=legacy', '--timeout', '5m']);
    await waitFor(async () => (await getJson(['get', 'pods', '-n', namespace])).items.length === 0, {
      what: "topogate's Pods gone",
      timeoutMs: 120_000,
      intervalMs: 2_000,
    });
    const left = await k([
      'get',
      'all,configmaps,secrets,serviceaccounts,roles,rolebindings,leases,poddisruptionbudgets',
      '-n',
      namespace,
      '-o',
      'name',
    ]);
    const leftNames = left
      .split('\n')
      .filter((name) => name && !/^(configmap\/kube-root-ca\.crt|serviceaccount\/default)$/.test(name));
    assert.deepEqual(leftNames, []);
    const clusterWide = await k([
      'get',
      'clusterroles,clusterrolebindings,mutatingwebhookconfigurations,validatingwebhookconfigurations,customresourcedefinitions',
      '-o',
      'name',
    ]);
    assert.deepEqual(
      clusterWide.split('\n').filter((name) => name.includes('topogate')),
      [],
    );
  });
});
