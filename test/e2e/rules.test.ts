// Rules from the measured data and Dynamic Resource Allocation
// (policy-v2.md), on a real control plane with the controller manager: a
// pack policy keeps every replica of a Deployment in the one rack that fits
// it and the real scheduler binds them there; a bandwidth Required policy keeps a data-heavy Pod among the
// zones with enough bandwidth to its Service; ResourceSlices published as the
// NVIDIA DRA driver publishes them make a gpu rule select their node; a
// ResourceClaimTemplate and a ResourceClaim created through the API server
// carry the alignment constraint, which the API server accepts; colocate keeps
// a callee's replicas in 2 zones while its callers run in one (minDomains), and
// puts a one-replica callee where most of its callers run.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { boundNode, coreApi, createNodes, kubectl, kubectlOk } from './harness/kube.ts';
import type { Topogate } from './harness/topogate.ts';
import { applyAll, installTopogateCrds, registerWebhook, startTopogate } from './harness/topogate.ts';
import { repoRoot } from './harness/versions.ts';
import { waitFor } from './harness/wait.ts';

const ZONE = 'topology.kubernetes.io/zone';
const BLOCK = 'topogate.dev/block';
const RACK = 'topogate.dev/rack';
const dra = join(repoRoot, '..', 'shared', 'fixtures', 'real-world', 'dra');

const policies = `apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: gang}
spec:
  match: {namespaces: [gang]}
  onUnsatisfiable: Reject
  rules:
    pack: {levels: [${ZONE}, ${BLOCK}, ${RACK}], level: ${RACK}, mode: Required}
---
apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: near-data}
spec:
  match: {namespaces: [data]}
  rules:
    bandwidth: {to: {service: data/warehouse}, minGbps: 50, mode: Required}
---
apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: h200}
spec:
  match: {namespaces: [gpu]}
  rules:
    gpu: {products: ["NVIDIA-H200*"], mode: Required}
    dra: {alignBy: resource.kubernetes.io/pcieRoot}
---
apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: cart-near-web}
spec:
  match: {namespaces: [shop], podSelector: {matchLabels: {app: cart}}}
  rules:
    colocate: {callers: [web], mode: Required, minDomains: 2}
---
apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: store-near-cart}
spec:
  match: {namespaces: [shop], podSelector: {matchLabels: {app: store}}}
  rules:
    colocate: {callers: [cart], mode: Required}
---
apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: where-cart-runs}
spec:
  match: {namespaces: [shop], podSelector: {matchLabels: {app: cart-seen}}}
  rules:
    colocate: {callers: [cart]}
`;

/** Racks r1 and r2 (two nodes each, block b1) and r3 (one node, block b2) in zone-a; one node each in zone-b, zone-c; two GPU hosts in zone-c. */
const nodes: { name: string; labels: Record<string, string> }[] = [
  { name: 'r1-1', labels: { [ZONE]: 'zone-a', [BLOCK]: 'b1', [RACK]: 'r1' } },
  { name: 'r1-2', labels: { [ZONE]: 'zone-a', [BLOCK]: 'b1', [RACK]: 'r1' } },
  { name: 'r2-1', labels: { [ZONE]: 'zone-a', [BLOCK]: 'b1', [RACK]: 'r2' } },
  { name: 'r2-2', labels: { [ZONE]: 'zone-a', [BLOCK]: 'b1', [RACK]: 'r2' } },
  { name: 'r3-1', labels: { [ZONE]: 'zone-a', [BLOCK]: 'b2', [RACK]: 'r3' } },
  { name: 'b-1', labels: { [ZONE]: 'zone-b' } },
  { name: 'c-1', labels: { [ZONE]: 'zone-c' } },
  { name: 'gpu-1', labels: { [ZONE]: 'zone-c' } },
  { name: 'gpu-2', labels: { [ZONE]: 'zone-c' } },
];

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const pause = (cpu: string) => [
  { name: 'main', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu } } },
];

/** The NVIDIA GPU DRA driver's slice (H200, from ai-on-gke), for one node, as the driver names and pools it. */
function h200Slice(nodeName: string): object {
  const text = readFileSync(
    join(dra, 'ai-on-gke.nvidia-gpu-dra-driver.H200.ResourceSliceList.v1.excerpt.yaml'),
    'utf8',
  );
  const [slice] = (parse(text.replaceAll('<node-name>', nodeName)) as { items: Record<string, any>[] }).items;
  return { ...slice, metadata: { name: `${nodeName}-gpu.nvidia.com-x7k2p` } };
}

function fixtureObject(file: string, kind: string, namespaceName: string): Record<string, any> {
  const documents = parseAllDocuments(readFileSync(join(dra, file), 'utf8')).map((d) => d.toJS());
  const found = documents.find((document) => document?.kind === kind) as Record<string, any>;
  return { ...found, metadata: { ...found.metadata, namespace: namespaceName } };
}

describe('rules from the measured data, and DRA', { timeout: 600_000 }, () => {
  let cluster: Cluster;
  let topogate: Topogate;

  const dryRun = async (ns: string, pod: object): Promise<any> =>
    JSON.parse(
      await kubectlOk(cluster, ['create', '-n', ns, '--dry-run=server', '-o', 'json', '-f', '-'], JSON.stringify(pod)),
    );
  const requiredOf = (pod: any): any[] =>
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]
      ?.matchExpressions ?? [];

  before(async () => {
    cluster = await startCluster();
    await installTopogateCrds(cluster);
    await createNodes(coreApi(cluster), nodes);
    await applyAll(cluster, ['gang', 'data', 'gpu', 'shop'].map(namespace));
    // Rack r1 is mostly taken: a Pod bound to r1-1 (as a kubelet's static Pod is) leaves it 2 of 8 cpu.
    await applyAll(cluster, [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'blocker', namespace: 'default' },
        spec: { nodeName: 'r1-1', containers: pause('6') },
      },
      {
        apiVersion: 'topogate.dev/v1alpha1',
        kind: 'NetworkTopology',
        metadata: { name: 'default' },
        spec: {
          domainLabel: ZONE,
          links: [
            { from: 'zone-a', to: 'zone-b', rttMs: 0.5, bandwidthGbps: 100 },
            { from: 'zone-a', to: 'zone-c', rttMs: 0.5, bandwidthGbps: 10 },
          ],
        },
      },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'warehouse-1', namespace: 'data', labels: { 'kubernetes.io/service-name': 'warehouse' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.0.0.5'], zone: 'zone-a', conditions: { ready: true } }],
      },
    ]);
    const dir = join(cluster.dir, 'policies');
    mkdirSync(dir);
    writeFileSync(join(dir, 'rules.yaml'), policies);
    topogate = await startTopogate({ cluster, policies: dir });
    await registerWebhook(cluster, topogate);
    await waitFor(
      async () =>
        requiredOf(
          await dryRun('data', {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'probe' },
            spec: { containers: pause('100m') },
          }),
        ).length > 0,
      { what: 'the webhook to answer for Pods', timeoutMs: 30_000 },
    );
  });

  after(async () => {
    await topogate?.stop();
    await cluster?.stop();
  });

  test('the API server serves resource.k8s.io/v1 by default', async () => {
    const versions = (await kubectlOk(cluster, ['api-versions'])).split('\n');
    assert.ok(versions.includes('resource.k8s.io/v1'), versions.join(' '));
  });

  test('pack: every replica of a Deployment lands in the one rack that fits them all, bound there by the scheduler', async () => {
    // 4 replicas × 3 cpu: two per 8-cpu node. r1 has room for 2 (the blocker), r3 for 2; only r2 holds 4.
    const replicas = 4;
    const labels = { app: 'train' };
    await applyAll(cluster, [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'train', namespace: 'gang' },
        spec: {
          replicas,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels, annotations: { 'topogate.dev/replicas': String(replicas) } },
            spec: { containers: pause('3') },
          },
        },
      },
    ]);
    // The controller manager's ReplicaSet controller creates the Pods; topogate decides each; the scheduler binds.
    const gang = async () => (await coreApi(cluster).listNamespacedPod({ namespace: 'gang' })).items;
    await waitFor(async () => (await gang()).filter((pod) => pod.spec?.nodeName).length === replicas, {
      what: `${replicas} Pods of the Deployment bound`,
      timeoutMs: 90_000,
    });
    const pods = JSON.parse(JSON.stringify(await gang())) as any[];
    assert.equal(pods.length, replicas);
    for (const pod of pods) {
      assert.deepEqual(requiredOf(pod), [{ key: RACK, operator: 'In', values: ['r2'] }], pod.metadata?.name);
      assert.equal(pod.metadata?.annotations?.['topogate.dev/policies'], 'gang');
    }
    const bound = pods.map((pod) => pod.spec!.nodeName!);
    assert.ok(
      bound.every((node) => node.startsWith('r2-')),
      bound.join(', '),
    );

    // Five replicas fit no rack now (r2 is full): the policy's onUnsatisfiable: Reject says so.
    const owner = pods[0]!.metadata!.ownerReferences!;
    const fifth = await kubectl(
      cluster,
      ['create', '-n', 'gang', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          generateName: 'train-extra-',
          labels: { ...pods[0]!.metadata!.labels, extra: 'yes' },
          annotations: { 'topogate.dev/replicas': '5' },
          ownerReferences: owner,
        },
        spec: { containers: pause('3') },
      }),
    );
    assert.notEqual(fifth.code, 0);
    assert.match(fifth.stderr, /policy gang, rule pack: .*no topogate.dev\/rack domain has room for 5/);
  });

  test('pack: a gang held at a scheduling gate keeps its rack; the next gang goes to another, and one that fits nowhere is refused', async () => {
    // Room for 1-cpu Pods now: r1 10 (2 on r1-1 beside the blocker, 8 on r1-2), r2 4 (the first gang), r3 8.
    const deployment = (name: string, replicas: number) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'gang' },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name }, annotations: { 'topogate.dev/replicas': String(replicas) } },
          // Held, as a gang admitter (Kueue) holds Pods until the whole gang may start.
          spec: { schedulingGates: [{ name: 'example.com/gang-admission' }], containers: pause('1') },
        },
      },
    });
    const podsOf = async (app: string) =>
      JSON.parse(
        JSON.stringify(
          (await coreApi(cluster).listNamespacedPod({ namespace: 'gang', labelSelector: `app=${app}` })).items,
        ),
      ) as any[];
    const racksOf = (pods: any[]) => [...new Set(pods.map((pod) => requiredOf(pod)[0]?.values?.[0]))];

    // Nine Pods fit only r1. They stay unbound behind their gate, so only what they are held to says r1 is taken.
    await applyAll(cluster, [deployment('gang-a', 9)]);
    await waitFor(async () => (await podsOf('gang-a')).length === 9, { what: 'gang-a’s 9 Pods', timeoutMs: 60_000 });
    const a = await podsOf('gang-a');
    assert.deepEqual(racksOf(a), ['r1']);
    assert.ok(a.every((pod) => !pod.spec.nodeName));

    // topogate sees them held once its watch delivers them: a 9-Pod workload no longer fits r1.
    const nine = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { generateName: 'gang-c-', annotations: { 'topogate.dev/replicas': '9' } },
      spec: { containers: pause('1') },
    };
    await waitFor(
      async () =>
        (await kubectl(cluster, ['create', '-n', 'gang', '--dry-run=server', '-f', '-'], JSON.stringify(nine))).code !==
        0,
      { what: 'topogate to count gang-a in r1', timeoutMs: 30_000 },
    );

    // Seven fit r1 or r3 on free capacity alone; with gang-a held in r1 (room for 1 left) only r3.
    await applyAll(cluster, [deployment('gang-b', 7)]);
    await waitFor(async () => (await podsOf('gang-b')).length === 7, { what: 'gang-b’s 7 Pods', timeoutMs: 60_000 });
    assert.deepEqual(racksOf(await podsOf('gang-b')), ['r3']);

    // Nine more fit nowhere now (r1 1, r2 4, r3 1): refused, where they would have been sent to r1 on bound Pods alone.
    const refused = await kubectl(cluster, ['create', '-n', 'gang', '-f', '-'], JSON.stringify(nine));
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /no topogate.dev\/rack domain has room for 9/);

    // The gates lifted, the scheduler binds each gang inside its rack.
    for (const pod of [...a, ...(await podsOf('gang-b'))])
      await kubectlOk(cluster, [
        'patch',
        'pod',
        '-n',
        'gang',
        pod.metadata.name,
        '--type=json',
        '-p',
        '[{"op":"remove","path":"/spec/schedulingGates"}]',
      ]);
    await waitFor(
      async () => [...(await podsOf('gang-a')), ...(await podsOf('gang-b'))].every((pod) => pod.spec.nodeName),
      { what: 'both gangs bound', timeoutMs: 90_000 },
    );
    assert.ok((await podsOf('gang-a')).every((pod) => pod.spec.nodeName.startsWith('r1-')));
    assert.ok((await podsOf('gang-b')).every((pod) => pod.spec.nodeName.startsWith('r3-')));
  });

  test('bandwidth Required: a data-heavy Pod stays in the zones with enough bandwidth to its Service', async () => {
    const names: string[] = [];
    for (let index = 0; index < 4; index++) {
      const created = JSON.parse(
        await kubectlOk(
          cluster,
          ['create', '-n', 'data', '-o', 'json', '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: `etl-${index}` },
            spec: { containers: pause('100m') },
          }),
        ),
      );
      // zone-a holds the Service; zone-b has 100 Gbps to it; zone-c only 10.
      assert.deepEqual(requiredOf(created), [{ key: ZONE, operator: 'In', values: ['zone-a', 'zone-b'] }]);
      names.push(created.metadata.name);
    }
    const bound = await Promise.all(names.map((name) => boundNode(coreApi(cluster), 'data', name)));
    const zoneOf = new Map(nodes.map((node) => [node.name, node.labels[ZONE]]));
    assert.ok(
      bound.every((node) => ['zone-a', 'zone-b'].includes(zoneOf.get(node)!)),
      bound.join(', '),
    );
  });

  test('gpu: ResourceSlices published as the NVIDIA DRA driver does make the rule select their node', async () => {
    const gpuPod = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: pause('100m') },
    });
    // No GPU anywhere yet: the rule cannot be met, and Warn admits the Pod without it.
    assert.deepEqual(requiredOf(await dryRun('gpu', gpuPod('early'))), []);
    await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify(h200Slice('gpu-1')));
    await waitFor(async () => requiredOf(await dryRun('gpu', gpuPod('probe'))).length > 0, {
      what: 'topogate to see the ResourceSlice',
      timeoutMs: 30_000,
    });
    const created = JSON.parse(
      await kubectlOk(cluster, ['create', '-n', 'gpu', '-o', 'json', '-f', '-'], JSON.stringify(gpuPod('trainer'))),
    );
    assert.deepEqual(requiredOf(created), [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['gpu-1'] }]);
    assert.equal(await boundNode(coreApi(cluster), 'gpu', 'trainer'), 'gpu-1');
  });

  test('colocate: replicas in 2 zones though the callers run in one (minDomains); a one-replica callee where most callers run', async () => {
    const shop = (name: string, replicas: number, spec: object = {}) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'shop' },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: pause('50m'), ...spec } },
      },
    });
    const probe = (app: string) =>
      dryRun('shop', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `probe-${app}`, labels: { app } },
        spec: { containers: pause('50m') },
      });
    const zoneIn = (zones: string[]) => [{ key: ZONE, operator: 'In', values: zones }];
    const zoneOf = (name: string) => nodes.find((node) => node.name === name)!.labels[ZONE]!;
    const bound = async (app: string, count: number) => {
      const list = async () =>
        (await coreApi(cluster).listNamespacedPod({ namespace: 'shop', labelSelector: `app=${app}` })).items;
      await waitFor(async () => (await list()).filter((pod) => pod.spec?.nodeName).length === count, {
        what: `${count} Pods of ${app} bound`,
        timeoutMs: 90_000,
      });
      return (await list()).map((pod) => zoneOf(pod.spec!.nodeName!)).sort();
    };
    // The caller, in zone-b only; topogate's Pod watch has it once a cart Pod is sent there.
    await applyAll(cluster, [shop('web', 1, { nodeSelector: { [ZONE]: 'zone-b' } })]);
    assert.deepEqual(await bound('web', 1), ['zone-b']);
    await waitFor(async () => JSON.stringify(requiredOf(await probe('cart'))) === JSON.stringify(zoneIn(['zone-b'])), {
      what: 'topogate to see the caller bound in zone-b',
      timeoutMs: 30_000,
    });
    // A burst of 3: zone-b (the callers'), then zone-a (minDomains 2: the first other zone by name), then zone-b.
    await applyAll(cluster, [shop('cart', 3)]);
    assert.deepEqual(await bound('cart', 3), ['zone-a', 'zone-b', 'zone-b']);
    // Once topogate sees cart in both zones, the one-replica store goes where 2 of its 3 callers run.
    await waitFor(
      async () =>
        JSON.stringify(
          (await probe('cart-seen')).spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0]
            ?.preference?.matchExpressions,
        ) === JSON.stringify(zoneIn(['zone-a', 'zone-b'])),
      { what: 'topogate to see cart bound in zone-a and zone-b', timeoutMs: 30_000 },
    );
    assert.deepEqual(requiredOf(await probe('store')), zoneIn(['zone-b']));
  });

  test('dra: a ResourceClaimTemplate and a ResourceClaim created through the API server carry the alignment constraint', async () => {
    const template = fixtureObject(
      'dra-example-driver.partitionable-devices.count2.v1.multi.yaml',
      'ResourceClaimTemplate',
      'gpu',
    );
    const storedTemplate = JSON.parse(
      await kubectlOk(cluster, ['create', '-o', 'json', '-f', '-'], JSON.stringify(template)),
    );
    assert.deepEqual(storedTemplate.spec.spec.devices.constraints, [
      { requests: ['gpu-partition'], matchAttribute: 'resource.kubernetes.io/pcieRoot' },
    ]);
    const read = JSON.parse(
      await kubectlOk(cluster, ['get', '-n', 'gpu', 'resourceclaimtemplate', 'gpu-partitions', '-o', 'json']),
    );
    assert.deepEqual(read.spec.spec.devices.constraints, storedTemplate.spec.spec.devices.constraints);

    // Already aligned by pcieRoot over two of its three requests: one more constraint, over all three.
    const claim = fixtureObject(
      'ai-on-gke.gpu-nic-cpu.matchAttribute-pcieRoot.ResourceClaim.v1.yaml',
      'ResourceClaim',
      'gpu',
    );
    const storedClaim = JSON.parse(
      await kubectlOk(cluster, ['create', '-o', 'json', '-f', '-'], JSON.stringify(claim)),
    );
    assert.deepEqual(storedClaim.spec.devices.constraints.at(-1), {
      requests: ['gpu-req', 'nic-req', 'cpu-req'],
      matchAttribute: 'resource.kubernetes.io/pcieRoot',
    });
    assert.equal(storedClaim.spec.devices.constraints.length, claim.spec.devices.constraints.length + 1);
  });
});
