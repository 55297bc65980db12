// Faults on the real control plane (3 etcd members, kube-apiserver,
// kube-scheduler on loopback) with topogate registered as an admin would:
// the API server restarted under load, topogate's watches cut mid-stream,
// the etcd leader stopped, a policy file replaced by a broken one, the
// serving certificate rotated under load, and topogate killed and restarted.
// Under load, Pods are created as server-side dry runs through the whole
// admission chain; an answer the API server accepted without topogate's
// placement is a failure (failurePolicy Ignore would hide it otherwise).

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { coreApi, createEtcdPods, createNodes, kubectlOk, metricSamples, type FakeNode } from './harness/kube.ts';
import type { Topogate } from './harness/topogate.ts';
import {
  applyAll,
  installTopogateCrds,
  issueServingCertificate,
  registerWebhook,
  startTopogate,
} from './harness/topogate.ts';
import { httpsGet } from './harness/wait.ts';

const namespace = 'team-faults';
const appliedAnnotation = 'topogate.dev/policies';
const ZONE = 'topology.kubernetes.io/zone';
const PRODUCT = 'nvidia.com/gpu.product';

const zone = (name: string) => ({ [ZONE]: name });
const gpuNode = (name: string, zoneName: string, product: string): FakeNode => ({
  name,
  labels: {
    ...zone(zoneName),
    'nvidia.com/gpu.present': 'true',
    [PRODUCT]: product,
    'nvidia.com/gpu.count': '8',
    'nvidia.com/gpu.memory': '81559',
  },
  allocatable: { 'nvidia.com/gpu': '8' },
});
const controlPlaneZones = ['zone-a', 'zone-b', 'zone-c'];
const nodes: FakeNode[] = [
  ...controlPlaneZones.map((name, index) => ({ name: `web-${index}`, labels: zone(name) })),
  gpuNode('gpu-0', 'zone-a', 'NVIDIA-H100-80GB-HBM3'),
  // Each etcd member runs on a control-plane node of its own zone, so the leader's zone says which member leads.
  ...controlPlaneZones.map((name, index) => ({
    name: `cp-${index}`,
    labels: { ...zone(name), 'node-role.kubernetes.io/control-plane': '' },
    taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
  })),
];

/** Every zone is 5 ms from the others: within 1 ms of the etcd leader is its own zone only. */
const networkTopology = {
  apiVersion: 'topogate.dev/v1alpha1',
  kind: 'NetworkTopology',
  metadata: { name: 'default' },
  spec: {
    domainLabel: ZONE,
    links: [
      { from: 'zone-a', to: 'zone-b', rttMs: 5 },
      { from: 'zone-a', to: 'zone-c', rttMs: 5 },
      { from: 'zone-b', to: 'zone-c', rttMs: 5 },
    ],
  },
};

const policy = (name: string, match: string, rules: string) => `apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata:
  name: ${name}
spec:
  match:
    namespaces: ["team-*"]
${match}
  rules:
${rules}
`;
const policies: Record<string, string> = {
  'web.yaml': policy(
    'web',
    '    podSelector: {matchLabels: {tier: web}}',
    '    nodeLabels:\n      required: [{key: topology.kubernetes.io/zone, operator: In, values: [zone-b]}]',
  ),
  'gpu.yaml': policy('gpu', '    resources: [nvidia.com/gpu]', '    gpu:\n      products: ["NVIDIA-H100*"]'),
  'near-leader.yaml': policy(
    'near-leader',
    '    podSelector: {matchLabels: {near: etcd-leader}}',
    '    latency:\n      to: {etcdLeader: true}\n      maxRttMs: 1\n      mode: Required',
  ),
};

function pod(name: string, labels: Record<string, string>, limits?: Record<string, string>): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: {
      containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10', ...(limits && { resources: { limits } }) }],
    },
  };
}
const webPod = (name: string) => pod(name, { tier: 'web' });
const gpuPod = (name: string) => pod(name, { app: 'train' }, { 'nvidia.com/gpu': '1' });
const nearLeaderPod = (name: string) => pod(name, { near: 'etcd-leader' });

const requiredValues = (p: V1Pod | undefined, key: string): string[] =>
  (p?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [])
    .flatMap((term) => term.matchExpressions ?? [])
    .filter((e) => e.key === key)
    .flatMap((e) => e.values ?? []);

/** A TCP relay between topogate and the API server: what lets a test cut topogate's watches mid-stream. */
async function startRelay(port: number): Promise<{ port: number; cut(): number; close(): Promise<void> }> {
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => [client, upstream].forEach((s) => s.destroy()));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    cut() {
      const cut = open.size;
      for (const socket of open) socket.destroy();
      return cut;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

interface Load {
  /** Dry-run creates the API server answered, and the ones among them topogate did not place. */
  readonly answered: number;
  readonly unplaced: string[];
  /** Requests the API server did not answer (it was down), with why. */
  readonly failed: string[];
  stop(): Promise<void>;
}

/** Two clients creating web Pods (server-side dry runs) back to back until stopped. */
function startLoad(api: CoreV1Api, tag: string): Load {
  let running = true;
  const load = { answered: 0, unplaced: [] as string[], failed: [] as string[] };
  const client = async (id: number) => {
    for (let i = 0; running; i++) {
      const name = `${tag}-${id}-${i}`;
      try {
        const created = await api.createNamespacedPod({ namespace, body: webPod(name), dryRun: 'All' });
        load.answered++;
        if (created.metadata?.annotations?.[appliedAnnotation] !== 'web') load.unplaced.push(name);
      } catch (error) {
        load.failed.push(`${name}: ${(error as Error).message.slice(0, 300)}`);
        await sleep(100);
      }
    }
  };
  const clients = [client(0), client(1)];
  return {
    get answered() {
      return load.answered;
    },
    unplaced: load.unplaced,
    failed: load.failed,
    async stop() {
      running = false;
      await Promise.all(clients);
    },
  };
}

describe('topogate under faults of a real control plane', { timeout: 900_000 }, () => {
  let cluster: Cluster;
  let topogate: Topogate;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let api: CoreV1Api;
  let policyDir: string;

  const dryRun = (body: V1Pod) => api.createNamespacedPod({ namespace, body, dryRun: 'All' });
  const topogateMetric = async (name: string, labels: Record<string, string> = {}) => {
    const samples = metricSamples((await httpsGet(`${topogate.url}/metrics`, { ca: topogate.caPem })).body, name);
    return samples
      .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((sum, s) => sum + s.value, 0);
  };
  const readyz = () => httpsGet(`${topogate.url}/readyz`, { ca: topogate.caPem });
  /** Polls until `probe` holds; the last value is in the error. */
  const until = async <T>(
    what: string,
    probe: () => Promise<T>,
    holds: (value: T) => boolean,
    timeoutMs = 60_000,
  ): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        last = await probe();
        if (holds(last as T)) return last as T;
      } catch (error) {
        last = error;
      }
      if (Date.now() > deadline)
        throw new Error(
          `${what}: not within ${timeoutMs} ms (last: ${last instanceof Error ? last.message : JSON.stringify(last)?.slice(0, 500)})`,
        );
      await sleep(250);
    }
  };
  /** topogate's own count: no request ended in an error, none was admitted unplaced for lack of time. */
  const assertNothingFailed = async () => {
    assert.equal(await topogateMetric('topogate_admission_requests_total', { outcome: 'error' }), 0);
    assert.equal(await topogateMetric('topogate_budget_exceeded_total'), 0);
  };
  /** How often the API server admitted a Pod because calling topogate failed (failurePolicy Ignore). */
  const apiServerFailOpen = async () =>
    metricSamples((await cluster.get('/metrics')).body, 'apiserver_admission_webhook_fail_open_count')
      .filter((s) => s.labels.name === 'pods.topogate.dev')
      .reduce((sum, s) => sum + s.value, 0);
  const etcdLeaderIndex = async (): Promise<number> => {
    const leaders = await Promise.all(
      cluster.etcdMetricsUrls.map(async (url) => {
        try {
          return metricSamples(await (await fetch(url)).text(), 'etcd_server_is_leader')[0]?.value ?? 0;
        } catch {
          return 0;
        }
      }),
    );
    return leaders.indexOf(1);
  };

  before(async () => {
    cluster = await startCluster({ etcdMembers: 3 });
    api = coreApi(cluster);
    await installTopogateCrds(cluster);
    await createNodes(api, nodes);
    await applyAll(cluster, [networkTopology, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }]);
    await createEtcdPods(api, cluster.etcd);
    policyDir = join(cluster.dir, 'faults-policies');
    mkdirSync(policyDir, { recursive: true });
    for (const [file, text] of Object.entries(policies)) writeFileSync(join(policyDir, file), text);

    // topogate reaches the API server through the relay; the API server calls topogate directly.
    relay = await startRelay(Number(new URL(cluster.server).port));
    const relayedKubeconfig = join(cluster.dir, 'topogate-relayed.kubeconfig');
    writeFileSync(
      relayedKubeconfig,
      readFileSync(cluster.kubeconfig, 'utf8').replace(cluster.server, `https://127.0.0.1:${relay.port}`),
    );
    topogate = await startTopogate({
      cluster: { kubeconfig: relayedKubeconfig, dir: cluster.dir },
      policies: policyDir,
      etcdMetrics: cluster.etcdMetricsUrls,
    });
    await registerWebhook(cluster, topogate);
    await until(
      'the webhook configuration in force',
      () => dryRun(webPod('probe')),
      (p) => p.metadata?.annotations?.[appliedAnnotation] === 'web',
    );
  });

  after(async () => {
    await topogate?.stop();
    await relay?.close();
    await cluster?.stop();
  });

  test('the API server restarted under load: every Pod it admits is placed, and later topology changes still reach the decisions', async () => {
    const load = startLoad(api, 'restart');
    await until(
      'load before the restart',
      async () => load.answered,
      (n) => n >= 5,
    );
    await cluster.restartApiServer();
    const answeredAtRestart = load.answered;
    await until(
      'load after the restart',
      async () => load.answered,
      (n) => n >= answeredAtRestart + 10,
    );
    await load.stop();

    assert.deepEqual(load.unplaced, [], "admitted without topogate's placement");
    assert.ok(
      load.failed.every((why) => !/webhook/.test(why)),
      `failures other than the API server being down:\n${load.failed.join('\n')}`,
    );
    await createNodes(api, [gpuNode('gpu-after-restart', 'zone-b', 'NVIDIA-H100-PCIe')]);
    const placed = await until(
      'a Node created after the restart in the GPU decision',
      () => dryRun(gpuPod('gpu-after-restart')),
      (p) => requiredValues(p, PRODUCT).includes('NVIDIA-H100-PCIe'),
    );
    assert.deepEqual(requiredValues(placed, PRODUCT).sort(), ['NVIDIA-H100-80GB-HBM3', 'NVIDIA-H100-PCIe']);
    assert.equal((await readyz()).status, 200);
    assert.ok(
      (await topogateMetric('topogate_topology_source_relists_total', { source: 'nodes' })) >= 1,
      'the Node watch relisted',
    );
    await assertNothingFailed();
  });

  test("topogate's watches cut mid-stream: it reconnects, and a Node created after the cut reaches the decisions; no request fails meanwhile", async () => {
    const load = startLoad(api, 'cut');
    assert.ok(relay.cut() > 0, 'topogate had connections open to the API server');
    await createNodes(api, [gpuNode('gpu-after-cut', 'zone-c', 'NVIDIA-H100-NVL')]);
    const placed = await until(
      'a Node created after the cut in the GPU decision',
      () => dryRun(gpuPod('gpu-after-cut')),
      (p) => requiredValues(p, PRODUCT).includes('NVIDIA-H100-NVL'),
    );
    await load.stop();

    assert.ok(
      requiredValues(placed, PRODUCT).includes('NVIDIA-H100-80GB-HBM3'),
      'nothing was lost in the reconnection',
    );
    assert.deepEqual(load.failed, []);
    assert.deepEqual(load.unplaced, []);
    assert.ok(load.answered > 0);
    assert.equal((await readyz()).status, 200);
    await assertNothingFailed();
  });

  test('the etcd leader stopped (3 members): the leader moves and latency.to.etcdLeader follows it', async () => {
    const leader = await until('an etcd leader', etcdLeaderIndex, (index) => index >= 0);
    const before = await until(
      "the leader's zone in the decision",
      () => dryRun(nearLeaderPod('near-before')),
      (p) => requiredValues(p, ZONE).length === 1,
    );
    assert.deepEqual(requiredValues(before, ZONE), [controlPlaneZones[leader]]);

    await cluster.stopEtcdMember(leader);
    try {
      const next = await until('a new etcd leader', etcdLeaderIndex, (index) => index >= 0 && index !== leader);
      const after = await until(
        "the new leader's zone in the decision",
        () => dryRun(nearLeaderPod('near-after')),
        (p) => requiredValues(p, ZONE)[0] === controlPlaneZones[next],
        60_000,
      );
      assert.deepEqual(requiredValues(after, ZONE), [controlPlaneZones[next]]);
    } finally {
      await cluster.startEtcdMember(leader);
    }
  });

  test('a policy file replaced by a broken one: the last good set stays in force, and /readyz says so', async () => {
    const file = join(policyDir, 'web.yaml');
    const errorsBefore = await topogateMetric('topogate_policy_reload_errors_total');
    writeFileSync(file, 'apiVersion: topogate.dev/v1alpha1\nkind: SchedulingPolicy\nmetadata: {name: web\nspec: [');
    try {
      const degraded = await until('the failed reload in /readyz', readyz, (r) => /last reload failed/.test(r.body));
      assert.equal(degraded.status, 200, 'still ready: the last good set serves');
      assert.match(degraded.body, /web\.yaml/);
      assert.ok((await topogateMetric('topogate_policy_reload_errors_total')) > errorsBefore);
      assert.equal(await topogateMetric('topogate_policy_last_reload_successful'), 0);
      const placed = await dryRun(webPod('web-while-broken'));
      assert.equal(placed.metadata?.annotations?.[appliedAnnotation], 'web');
      assert.deepEqual(requiredValues(placed, ZONE), ['zone-b']);
    } finally {
      writeFileSync(file, policies['web.yaml']!);
    }
    await until('a clean /readyz after the fix', readyz, (r) => r.status === 200 && !/last reload failed/.test(r.body));
    assert.equal(await topogateMetric('topogate_policy_last_reload_successful'), 1);
  });

  test('topogate killed: failurePolicy Ignore admits unplaced, Fail refuses; restarted, it is ready only with its model synced', async () => {
    await topogate.stop('SIGKILL');
    const ignored = await dryRun(webPod('while-killed'));
    assert.equal(ignored.metadata?.annotations?.[appliedAnnotation], undefined, 'Ignore: admitted as written');

    await kubectlOk(cluster, [
      'patch',
      'mutatingwebhookconfiguration',
      'topogate',
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Fail"}]',
    ]);
    try {
      const refused = await until(
        'failurePolicy Fail in force',
        () =>
          dryRun(webPod('while-killed-fail')).then(
            () => 'admitted',
            (error: Error) => error.message,
          ),
        (why) => why !== 'admitted',
      );
      assert.match(refused, /failed calling webhook \W*pods\.topogate\.dev\W.*connection refused/);

      // start() returns at the first 200 from /readyz: the very next decisions must see the whole model.
      await topogate.start();
      const [gpu, near, web] = await Promise.all([
        dryRun(gpuPod('gpu-after-kill')),
        dryRun(nearLeaderPod('near-after-kill')),
        dryRun(webPod('web-after-kill')),
      ]);
      assert.deepEqual(requiredValues(gpu, PRODUCT).sort(), [
        'NVIDIA-H100-80GB-HBM3',
        'NVIDIA-H100-NVL',
        'NVIDIA-H100-PCIe',
      ]);
      assert.deepEqual(requiredValues(near, ZONE), [controlPlaneZones[await etcdLeaderIndex()]]);
      assert.equal(web.metadata?.annotations?.[appliedAnnotation], 'web');
      assert.match((await readyz()).body, /\[\+\]topology ok/);
    } finally {
      await kubectlOk(cluster, [
        'patch',
        'mutatingwebhookconfiguration',
        'topogate',
        '--type=json',
        '-p',
        '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]',
      ]);
    }
  });

  // Last: the harness restarts topogate trusting only the first CA.
  test('the serving certificate rotated under load (to a new CA the webhook already trusts): no request fails or goes unplaced', async () => {
    const staged = join(cluster.dir, 'rotated-certs');
    await issueServingCertificate(staged);
    const nextCa = readFileSync(join(staged, 'ca.crt'), 'utf8');
    // First the API server trusts both CAs (and skips Pods labelled rotation=trusting, so we can tell when it has the change)…
    const bundle = Buffer.from(`${topogate.caPem}${nextCa}`).toString('base64');
    await kubectlOk(cluster, [
      'patch',
      'mutatingwebhookconfiguration',
      'topogate',
      '--type=json',
      '-p',
      JSON.stringify([
        { op: 'replace', path: '/webhooks/0/clientConfig/caBundle', value: bundle },
        {
          op: 'add',
          path: '/webhooks/0/objectSelector/matchExpressions/-',
          value: { key: 'rotation', operator: 'NotIn', values: ['trusting'] },
        },
      ]),
    ]);
    await until(
      'the API server trusting both CAs',
      () => dryRun(pod('marker', { tier: 'web', rotation: 'trusting' })),
      (p) => p.metadata?.annotations?.[appliedAnnotation] === undefined,
    );

    // …then the files change under load, as cert-manager or a Secret update changes them.
    const failOpenBefore = await apiServerFailOpen();
    const load = startLoad(api, 'rotate');
    await until(
      'load before the rotation',
      async () => load.answered,
      (n) => n >= 5,
    );
    for (const file of ['tls.key', 'tls.crt'])
      writeFileSync(join(topogate.certDir, file), readFileSync(join(staged, file)));
    await until(
      'the new certificate served',
      () => topogateMetric('topogate_certificate_reloads_total', { result: 'applied' }),
      (n) => n >= 1,
    );
    const answeredAtRotation = load.answered;
    await until(
      'load after the rotation',
      async () => load.answered,
      (n) => n >= answeredAtRotation + 10,
    );
    await load.stop();

    assert.deepEqual(load.failed, []);
    assert.deepEqual(load.unplaced, []);
    assert.equal(
      (await httpsGet(`${topogate.url}/healthz`, { ca: nextCa })).status,
      200,
      'the new certificate is the one served',
    );
    assert.equal(await apiServerFailOpen(), failOpenBefore, 'the API server never failed open on topogate');
    await assertNothingFailed();
  });
});
