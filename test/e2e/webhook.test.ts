// topogate registered with a real API server exactly as a cluster admin would
// (certs --localhost, serve --topology kube, the MutatingWebhookConfiguration
// of manifests/ in URL mode), judged through kubectl and @kubernetes/client-node,
// and the real kube-scheduler placing what it mutated on a fake fleet.

import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { fleet, networkTopology, nodeResourceTopologies, numaFit } from './fixtures/fleet.ts';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { boundNode, coreApi, createNodes, kubectl, kubectlOk, metricSamples } from './harness/kube.ts';
import type { Labeller } from './harness/labeller.ts';
import { labelKey, labellerWebhook, startLabeller } from './harness/labeller.ts';
import type { Topogate } from './harness/topogate.ts';
import { applyAll, installTopogateCrds, registerWebhook, startTopogate } from './harness/topogate.ts';

const policies = fileURLToPath(new URL('./fixtures/policies/', import.meta.url));
const nrtCrd = fileURLToPath(
  new URL('../../../shared/fixtures/real-world/nrt/nrt-api.crd.v1alpha1+v1alpha2.yaml', import.meta.url),
);
const webhookName = 'pods.topogate.dev';
const appliedAnnotation = 'topogate.dev/policies';

interface PodShape {
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  /** What the user wrote besides the one container. */
  readonly spec?: Omit<V1PodSpec, 'containers'>;
}

function pod(name: string, shape: PodShape = {}): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: shape.labels, annotations: shape.annotations },
    spec: {
      ...shape.spec,
      containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10', resources: shape.resources }],
    },
  };
}

const requiredExpressions = (p: V1Pod) =>
  p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms.flatMap(
    (term) => term.matchExpressions ?? [],
  ) ?? [];

const valuesOf = (p: V1Pod, key: string) =>
  requiredExpressions(p)
    .filter((e) => e.key === key)
    .map((e) => e.values ?? []);

describe('topogate behind a real API server', { timeout: 600_000 }, () => {
  let cluster: Cluster;
  let topogate: Topogate;
  let labeller: Labeller | undefined;

  /** kubectl create of one Pod, as the user would type it; the created (or dry-run) object is parsed back. */
  const create = async (namespace: string, body: V1Pod, ...flags: string[]) => {
    const result = await kubectl(
      cluster,
      ['create', '-n', namespace, '-o', 'json', ...flags, '-f', '-'],
      JSON.stringify(body),
    );
    return { ...result, pod: result.code === 0 ? (JSON.parse(result.stdout) as V1Pod) : undefined };
  };

  /** How many times the API server has called topogate, by its own metric. */
  const webhookCalls = async () => {
    const metrics = await cluster.get('/metrics');
    return metricSamples(metrics.body, 'apiserver_admission_webhook_admission_duration_seconds_count')
      .filter((s) => s.labels['name'] === webhookName)
      .reduce((sum, s) => sum + s.value, 0);
  };

  /** Webhook configuration changes reach the API server's admission chain a moment later: poll a dry run until it does. */
  const until = async (what: string, probe: () => Promise<boolean>) => {
    const deadline = Date.now() + 30_000;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`${what}: not seen within 30 s`);
      await sleep(250);
    }
  };

  before(async () => {
    cluster = await startCluster();
    await kubectlOk(cluster, ['apply', '-f', nrtCrd]);
    await kubectlOk(cluster, [
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      'crd/noderesourcetopologies.topology.node.k8s.io',
    ]);
    await installTopogateCrds(cluster);
    await createNodes(coreApi(cluster), fleet);
    await applyAll(cluster, [...nodeResourceTopologies, networkTopology]);
    const namespaces = [
      { name: 'team-ml', labels: {} },
      { name: 'plain', labels: {} },
      { name: 'team-skip', labels: { 'topogate.dev/skip': 'true' } },
      { name: 'numa-jobs', labels: { numa: 'aligned' } },
    ];
    await applyAll(
      cluster,
      namespaces.map(({ name, labels }) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } })),
    );
    topogate = await startTopogate({ cluster, policies, etcdMetrics: cluster.etcdMetricsUrls });
    await registerWebhook(cluster, topogate);
    await until('the webhook configuration', async () => {
      const probe = await create(
        'team-ml',
        pod('probe', { labels: { tier: 'web', app: 'probe' } }),
        '--dry-run=server',
      );
      return probe.pod?.metadata?.annotations?.[appliedAnnotation] !== undefined;
    });
  });

  afterEach((t) => {
    if (!t.passed && topogate)
      process.stderr.write(`--- ${t.name}: the end of topogate's output\n${topogate.output().slice(-4000)}\n`);
  });

  after(async () => {
    await labeller?.close();
    await topogate?.stop();
    await cluster?.stop();
  });

  test('a web Pod in a team namespace gets zone-b and a spread, and the scheduler puts it there', async () => {
    const api = coreApi(cluster);
    const created = await api.createNamespacedPod({
      namespace: 'team-ml',
      body: pod('web-1', { labels: { tier: 'web', app: 'shop' } }),
    });
    assert.deepEqual(valuesOf(created, 'topology.kubernetes.io/zone'), [['zone-b']]);
    assert.deepEqual(
      created.spec?.topologySpreadConstraints?.map((c) => [c.topologyKey, c.labelSelector?.matchLabels]),
      [['topology.kubernetes.io/zone', { app: 'shop' }]],
    );
    assert.equal(created.metadata?.annotations?.[appliedAnnotation], 'web-zones');
    assert.ok(['web-b1', 'web-b2'].includes(await boundNode(api, 'team-ml', 'web-1')));
  });

  test("what the user wrote stays: zone-b is ANDed into each of the Pod's own terms, its own spread is not doubled, and the API server accepts the result", async () => {
    const hostnames = (values: string[]) => ({
      matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values }],
    });
    const created = await create(
      'team-ml',
      pod('web-own', {
        labels: { tier: 'web', app: 'own' },
        spec: {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [hostnames(['web-a1', 'web-b1']), hostnames(['web-c1'])],
              },
            },
          },
          topologySpreadConstraints: [
            {
              topologyKey: 'topology.kubernetes.io/zone',
              maxSkew: 2,
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: { app: 'own' } },
            },
          ],
        },
      }),
    );
    assert.equal(created.code, 0, created.stderr);
    const terms =
      created.pod?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ??
      [];
    assert.deepEqual(
      terms.map((term) => term.matchExpressions?.map((e) => `${e.key} ${e.operator} ${e.values?.join(',')}`)),
      [
        ['kubernetes.io/hostname In web-a1,web-b1', 'topology.kubernetes.io/zone In zone-b'],
        ['kubernetes.io/hostname In web-c1', 'topology.kubernetes.io/zone In zone-b'],
      ],
    );
    assert.deepEqual(
      created.pod?.spec?.topologySpreadConstraints?.map((c) => c.maxSkew),
      [2],
    );
    assert.equal(await boundNode(coreApi(cluster), 'team-ml', 'web-own'), 'web-b1');
  });

  test('the same Pod in a namespace no policy matches is left as written', async () => {
    const created = await create('plain', pod('web-1', { labels: { tier: 'web', app: 'shop' } }));
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.pod?.spec?.affinity, undefined);
    assert.equal(created.pod?.spec?.topologySpreadConstraints, undefined);
    assert.equal(created.pod?.metadata?.annotations?.[appliedAnnotation], undefined);
  });

  test('kubectl create --dry-run=server -o yaml shows the mutation and creates nothing', async () => {
    const result = await kubectl(
      cluster,
      ['create', '-n', 'team-ml', '--dry-run=server', '-o', 'yaml', '-f', '-'],
      stringify(pod('dry-1', { labels: { tier: 'web', app: 'dry' } })),
    );
    assert.equal(result.code, 0, result.stderr);
    const shown = parse(result.stdout) as V1Pod;
    assert.deepEqual(valuesOf(shown, 'topology.kubernetes.io/zone'), [['zone-b']]);
    assert.equal(shown.metadata?.annotations?.[appliedAnnotation], 'web-zones');
    const lookup = await kubectl(cluster, ['get', 'pod', '-n', 'team-ml', 'dry-1']);
    assert.notEqual(lookup.code, 0);
    assert.match(lookup.stderr, /NotFound|not found/);
  });

  test('a GPU Pod gets the H100 products and is bound to the H100 node, not the A100 one', async () => {
    const created = await create('team-ml', pod('train-1', { resources: { limits: { 'nvidia.com/gpu': '1' } } }));
    assert.equal(created.code, 0, created.stderr);
    assert.ok(created.pod);
    assert.deepEqual(valuesOf(created.pod, 'nvidia.com/gpu.product'), [['NVIDIA-H100-80GB-HBM3']]);
    assert.equal(created.pod.metadata?.annotations?.[appliedAnnotation], 'gpu-h100');
    assert.equal(await boundNode(coreApi(cluster), 'team-ml', 'train-1'), 'gpu-h100');
  });

  test('a Guaranteed Pod of 6 CPUs goes to the one node with a NUMA cell that fits it whole', async () => {
    const whole = { cpu: '6', memory: '1Gi' };
    const created = await create('numa-jobs', pod('numa-1', { resources: { requests: whole, limits: whole } }));
    assert.equal(created.code, 0, created.stderr);
    assert.ok(created.pod);
    assert.deepEqual(valuesOf(created.pod, 'kubernetes.io/hostname'), [[numaFit]]);
    const hint = JSON.parse(created.pod.metadata?.annotations?.['topogate.dev/numa-hint'] ?? '{}') as Record<
      string,
      string
    >;
    assert.deepEqual(Object.keys(hint), [numaFit]);
    assert.equal(hint[numaFit], 'node-0');
    assert.equal(await boundNode(coreApi(cluster), 'numa-jobs', 'numa-1'), numaFit);
  });

  test('a Pod that must be near the etcd leader gets the zones within 1 ms of it, from the live etcd metrics', async () => {
    const created = await create('team-ml', pod('near-leader-1', { labels: { near: 'etcd-leader' } }));
    assert.equal(created.code, 0, created.stderr);
    assert.ok(created.pod);
    assert.deepEqual(valuesOf(created.pod, 'topology.kubernetes.io/zone'), [['zone-b', 'zone-c']]);
    const node = await boundNode(coreApi(cluster), 'team-ml', 'near-leader-1');
    const zoneOf = fleet.find((n) => n.name === node)?.labels?.['topology.kubernetes.io/zone'];
    assert.ok(zoneOf === 'zone-b' || zoneOf === 'zone-c', `${node} is in ${zoneOf}`);
  });

  test("kubectl prints topogate's warning when a Warn policy cannot be satisfied, and the Pod is admitted without it", async () => {
    const created = await create('team-ml', pod('warned-1', { labels: { want: 'nowhere-warn' } }));
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /^Warning: .*nowhere-warn/m);
    assert.deepEqual(valuesOf(created.pod ?? {}, 'topology.kubernetes.io/zone'), []);
  });

  test("a Reject policy's denial reaches the user with its message, and no Pod is made", async () => {
    const created = await create('team-ml', pod('rejected-1', { labels: { want: 'nowhere-reject' } }));
    assert.notEqual(created.code, 0);
    assert.match(created.stderr, new RegExp(`admission webhook "${webhookName}" denied the request: .*nowhere-reject`));
    assert.notEqual((await kubectl(cluster, ['get', 'pod', '-n', 'team-ml', 'rejected-1'])).code, 0);
  });

  test('when a later webhook changes the Pod, topogate is called again and adds nothing twice', async () => {
    labeller = await startLabeller(topogate.certDir);
    await applyAll(cluster, [labellerWebhook(labeller, topogate.caPem)]);
    const reinvoked = (name: string) => pod(name, { labels: { tier: 'web', app: 'again', reinvoke: 'yes' } });
    await until(
      'the labeller webhook',
      async () =>
        (await create('team-ml', reinvoked('probe'), '--dry-run=server')).pod?.metadata?.labels?.[labelKey] === 'yes',
    );
    const callsBefore = await webhookCalls();
    const created = await create('team-ml', reinvoked('again-1'));
    assert.equal(created.code, 0, created.stderr);
    assert.equal((await webhookCalls()) - callsBefore, 2, 'topogate called once, then reinvoked once');
    assert.equal(created.pod?.metadata?.labels?.[labelKey], 'yes');
    assert.deepEqual(valuesOf(created.pod ?? {}, 'topology.kubernetes.io/zone'), [['zone-b']]);
    assert.equal(created.pod?.spec?.topologySpreadConstraints?.length, 1);
    assert.equal(created.pod?.metadata?.annotations?.[appliedAnnotation], 'web-zones');
    await kubectlOk(cluster, ['delete', 'mutatingwebhookconfiguration', 'zz-e2e-labeller']);
  });

  test('the namespace selector, object selector and match conditions keep topogate from being called', async () => {
    const web = { tier: 'web', app: 'skipped' };
    const cases = [
      { namespace: 'team-skip', body: pod('by-namespace', { labels: web }) },
      { namespace: 'team-ml', body: pod('by-label', { labels: { ...web, 'topogate.dev/skip': 'true' } }) },
      {
        namespace: 'team-ml',
        body: pod('by-annotation', { labels: web, annotations: { 'topogate.dev/skip': 'true' } }),
      },
    ];
    const callsBefore = await webhookCalls();
    for (const { namespace, body } of cases) {
      const created = await create(namespace, body);
      assert.equal(created.code, 0, created.stderr);
      assert.equal(created.pod?.spec?.affinity, undefined, `${namespace}/${body.metadata?.name}`);
      assert.equal(
        created.pod?.metadata?.annotations?.[appliedAnnotation],
        undefined,
        `${namespace}/${body.metadata?.name}`,
      );
    }
    assert.equal(await webhookCalls(), callsBefore);
  });

  test("the API server's admission latency metric for topogate is there, and is reported", async (t) => {
    const metrics = (await cluster.get('/metrics')).body;
    const name = 'apiserver_admission_webhook_admission_duration_seconds';
    const ours = (suffix: string) =>
      metricSamples(metrics, `${name}${suffix}`).filter((s) => s.labels['name'] === webhookName);
    const count = ours('_count').reduce((sum, s) => sum + s.value, 0);
    const sum = ours('_sum').reduce((total, s) => total + s.value, 0);
    assert.ok(count > 0, `${name} has no samples for ${webhookName}`);
    assert.ok(ours('_bucket').length > 0);
    const report = `${name}{name="${webhookName}"}: ${count} calls, mean ${((sum / count) * 1000).toFixed(1)} ms`;
    t.diagnostic(report);
    process.stdout.write(
      `# ${report}\n${ours('_bucket')
        .map((s) => `#   le=${s.labels['le']} rejected=${s.labels['rejected']}: ${s.value}`)
        .join('\n')}\n`,
    );
  });

  test('with topogate stopped, failurePolicy Ignore admits the Pod unchanged and Fail rejects it', async () => {
    await topogate.stop();
    const ignored = await create('team-ml', pod('while-down-1', { labels: { tier: 'web', app: 'down' } }));
    assert.equal(ignored.code, 0, ignored.stderr);
    assert.equal(ignored.pod?.metadata?.annotations?.[appliedAnnotation], undefined);
    await kubectlOk(cluster, [
      'patch',
      'mutatingwebhookconfiguration',
      'topogate',
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Fail"}]',
    ]);
    const downPod = pod('while-down-2', { labels: { tier: 'web', app: 'down' } });
    await until('failurePolicy Fail', async () => (await create('team-ml', downPod, '--dry-run=server')).code !== 0);
    const rejected = await create('team-ml', downPod);
    assert.notEqual(rejected.code, 0);
    assert.match(rejected.stderr, new RegExp(`failed calling webhook "${webhookName}"`));
    assert.notEqual((await kubectl(cluster, ['get', 'pod', '-n', 'team-ml', 'while-down-2'])).code, 0);
  });
});
