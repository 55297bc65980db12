// Scheduling gates on the real control plane with the real scheduler: Pods
// deferred by the webhook (--defer always) and Pods gated by the second plane
// (the MutatingAdmissionPolicy of `manifests --gate-plane`, inside the API
// server) while topogate is down, all placed by the controller once it runs,
// across a crash of the controller in the middle. docs/gates.md states the
// bounds these measure.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { coreApi, createNodes, kubectl, kubectlOk, metricSamples } from './harness/kube.ts';
import type { Topogate } from './harness/topogate.ts';
import { GATE, gatesOf, untilDryRunDeferred } from './harness/gates.ts';
import { applyAll, installTopogateCrds, registerWebhook, startTopogate, topogateCli } from './harness/topogate.ts';
import { httpsGet, waitFor } from './harness/wait.ts';

const ZONE = 'topology.kubernetes.io/zone';

/** Zone-Required policies, Reject when no node is left: zone-a for Pods labelled placement=zone-a, zone-d likewise. */
function zonePolicy(zone: string): string {
  return `apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata:
  name: zone-${zone}
spec:
  priority: 10
  onUnsatisfiable: Reject
  match:
    namespaces: [deferred, plane]
    podSelector:
      matchLabels: {placement: zone-${zone}}
  rules:
    nodeLabels:
      required:
        - {key: ${ZONE}, operator: In, values: [${zone}]}
    spread:
      - {topologyKey: kubernetes.io/hostname, maxSkew: 1, whenUnsatisfiable: ScheduleAnyway}
`;
}

const pod = (name: string, zone: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'web', placement: `zone-${zone}` } },
  spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
});

const zoneOf = (node: string) => node.split('-')[0];

/** Creates the Pods, ten at a time; returns when each was created (epoch ms). */
async function createPods(api: CoreV1Api, namespace: string, pods: readonly V1Pod[]): Promise<Map<string, number>> {
  const created = new Map<string, number>();
  for (let start = 0; start < pods.length; start += 10) {
    await Promise.all(
      pods.slice(start, start + 10).map(async (body) => {
        await api.createNamespacedPod({ namespace, body });
        created.set(body.metadata!.name!, Date.now());
      }),
    );
  }
  return created;
}

/** Polls the namespace until every Pod is bound; returns when each was first seen bound, and the Pods then. */
async function untilAllBound(
  api: CoreV1Api,
  namespace: string,
  count: number,
  timeoutMs: number,
): Promise<{ boundAt: Map<string, number>; pods: V1Pod[] }> {
  const boundAt = new Map<string, number>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { items } = await api.listNamespacedPod({ namespace });
    for (const item of items)
      if (item.spec?.nodeName && !boundAt.has(item.metadata!.name!)) boundAt.set(item.metadata!.name!, Date.now());
    if (boundAt.size >= count) return { boundAt, pods: items };
    if (Date.now() > deadline) {
      const unbound = items.filter((item) => !item.spec?.nodeName).map((item) => item.metadata?.name);
      throw new Error(`${namespace}: ${unbound.length} Pods unbound after ${timeoutMs} ms: ${unbound.join(', ')}`);
    }
    await sleep(100);
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

describe('scheduling gates on a real control plane', { timeout: 600_000 }, () => {
  let cluster: Cluster;
  let api: CoreV1Api;
  let topogate: Topogate;

  before(async () => {
    cluster = await startCluster();
    api = coreApi(cluster);
    await installTopogateCrds(cluster);
    await createNodes(
      api,
      ['a-1', 'a-2', 'b-1', 'b-2', 'c-1'].map((name) => ({ name, labels: { [ZONE]: zoneOf(name)! } })),
    );
    await applyAll(
      cluster,
      ['deferred', 'plane'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
    );
    const policies = join(cluster.dir, 'gate-policies');
    mkdirSync(policies, { recursive: true });
    for (const zone of ['a', 'd']) writeFileSync(join(policies, `zone-${zone}.yaml`), zonePolicy(zone));
    topogate = await startTopogate({ cluster, policies, serveArgs: ['--defer', 'always', '--defer-max', '90s'] });
    await registerWebhook(cluster, topogate);
  });

  after(async () => {
    await topogate?.stop();
    await cluster?.stop();
  });

  test('--defer always: 50 Pods under a zone-Required policy are gated at admission, then all bound in the zone, none keeps the gate', async (t) => {
    await untilDryRunDeferred(cluster, 'deferred', pod('probe', 'a'));
    const names = Array.from({ length: 50 }, (_, index) => `web-${index}`);
    const created = await createPods(
      api,
      'deferred',
      names.map((name) => pod(name, 'a')),
    );
    const { boundAt, pods } = await untilAllBound(api, 'deferred', names.length, 120_000);

    for (const bound of pods) {
      assert.equal(zoneOf(bound.spec!.nodeName!), 'a', `${bound.metadata?.name} on ${bound.spec?.nodeName}`);
      assert.deepEqual(gatesOf(bound), [], `${bound.metadata?.name} keeps no gate`);
      assert.equal(bound.metadata?.annotations?.['topogate.dev/deferred'], 'always');
      assert.equal(bound.metadata?.annotations?.['topogate.dev/policies'], 'zone-a');
      assert.equal(bound.spec?.topologySpreadConstraints?.length, 1, 'the spread was written at admission, once');
    }
    const toBind = names.map((name) => boundAt.get(name)! - created.get(name)!);
    const report = `time to bind, 50 deferred Pods: p50 ${percentile(toBind, 50)} ms, p90 ${percentile(toBind, 90)} ms, max ${Math.max(...toBind)} ms`;
    t.diagnostic(report);
    console.log(report);

    // A Placed Event is sent after its release and never holds it up: under load some arrive after the bind.
    let placedEvents = new Set<string>();
    await waitFor(
      async () => {
        const events = await api.listNamespacedEvent({ namespace: 'deferred', fieldSelector: 'reason=Placed' });
        placedEvents = new Set(events.items.map((event) => event.involvedObject.name!));
        return placedEvents.size >= names.length;
      },
      { what: 'a Placed Event for every Pod', timeoutMs: 60_000 },
    ).catch(() => undefined);
    assert.equal(placedEvents.size, names.length);
    const metrics = await httpsGet(`${topogate.url}/metrics`, { ca: topogate.caPem });
    const placed = metricSamples(metrics.body, 'topogate_gate_releases_total').find(
      (sample) => sample.labels['outcome'] === 'placed',
    );
    assert.equal(placed?.value, names.length);
  });

  test('the second plane: with topogate stopped, new Pods of an opted-in namespace stay gated; started, it places them all', async (t) => {
    const plane = parseAllDocuments(await topogateCli(['manifests', '--gate-plane']))
      .map((document) => document.toJS() as { kind: string })
      .filter((object) => object.kind.startsWith('MutatingAdmissionPolicy'));
    assert.deepEqual(
      plane.map((object) => object.kind),
      ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'],
    );
    await applyAll(cluster, plane);
    await kubectlOk(cluster, ['label', 'namespace', 'plane', 'topogate.dev/placement=gated']);
    await topogate.stop();
    // The policy reaches the admission chain a moment after it is stored: a dry run shows when.
    for (let attempt = 0; ; attempt++) {
      const probe = await kubectl(
        cluster,
        ['create', '-n', 'plane', '--dry-run=server', '-o', 'json', '-f', '-'],
        JSON.stringify(pod('probe', 'a')),
      );
      if (probe.code === 0 && gatesOf(JSON.parse(probe.stdout) as V1Pod).includes(GATE)) break;
      assert.ok(attempt < 120, 'the MutatingAdmissionPolicy never gated a dry run');
      await sleep(250);
    }

    const names = Array.from({ length: 20 }, (_, index) => `down-${index}`);
    await createPods(
      api,
      'plane',
      names.map((name) => pod(name, 'a')),
    );
    await sleep(5_000);
    const waiting = (await api.listNamespacedPod({ namespace: 'plane' })).items;
    assert.equal(waiting.length, names.length);
    for (const gated of waiting) {
      assert.equal(gated.spec?.nodeName, undefined, `${gated.metadata?.name} is not bound`);
      assert.deepEqual(gatesOf(gated), [GATE]);
    }

    const started = Date.now();
    await topogate.start();
    const { pods } = await untilAllBound(api, 'plane', names.length, 60_000);
    const report = `gate plane: ${names.length} Pods gated while topogate was down, all bound ${Date.now() - started} ms after it was started`;
    t.diagnostic(report);
    console.log(report);
    for (const bound of pods) {
      assert.equal(zoneOf(bound.spec!.nodeName!), 'a', `${bound.metadata?.name} on ${bound.spec?.nodeName}`);
      assert.deepEqual(gatesOf(bound), []);
      assert.equal(bound.metadata?.annotations?.['topogate.dev/policies'], 'zone-a');
    }
  });

  test('a controller crash in the middle loses no gated Pod: the next one lists them all', async (t) => {
    await topogate.stop();
    const names = [
      ...Array.from({ length: 20 }, (_, index) => ({ name: `crash-a-${index}`, zone: 'a' })),
      // No zone-d node yet: under Reject these wait behind the gate in the controller.
      ...Array.from({ length: 5 }, (_, index) => ({ name: `crash-d-${index}`, zone: 'd' })),
    ];
    await createPods(
      api,
      'plane',
      names.map(({ name, zone }) => pod(name, zone)),
    );
    await topogate.start();
    const gatedNow = async () =>
      (await api.listNamespacedPod({ namespace: 'plane', labelSelector: 'app=web' })).items.filter(
        (item) => item.metadata?.name?.startsWith('crash-') && gatesOf(item).includes(GATE),
      );
    const firstRelease = Date.now() + 60_000;
    while ((await gatedNow()).length === names.length) {
      assert.ok(Date.now() < firstRelease, 'the controller released nothing within 60 s');
      await sleep(20);
    }
    await topogate.stop('SIGKILL');
    const left = await gatedNow();
    t.diagnostic(`killed with ${left.length} of ${names.length} Pods still gated`);
    assert.ok(left.length >= 5, 'the zone-d Pods, at least, were still gated when the controller died');

    const restarted = Date.now();
    await topogate.start();
    await createNodes(api, [{ name: 'd-1', labels: { [ZONE]: 'd' } }]);
    const deadline = Date.now() + 90_000;
    let pods: V1Pod[];
    for (;;) {
      pods = (await api.listNamespacedPod({ namespace: 'plane' })).items.filter((item) =>
        item.metadata?.name?.startsWith('crash-'),
      );
      if (pods.every((item) => item.spec?.nodeName)) break;
      assert.ok(Date.now() < deadline, `unbound after 90 s: ${pods.filter((item) => !item.spec?.nodeName).length}`);
      await sleep(200);
    }
    const report = `controller crash: all ${names.length} Pods bound ${Date.now() - restarted} ms after the restart (the Lease of the killed replica expires first)`;
    t.diagnostic(report);
    console.log(report);
    assert.equal(pods.length, names.length);
    for (const bound of pods) {
      const wanted = bound.metadata!.name!.startsWith('crash-a-') ? 'a' : 'd';
      assert.equal(zoneOf(bound.spec!.nodeName!), wanted, `${bound.metadata?.name} on ${bound.spec?.nodeName}`);
      assert.deepEqual(gatesOf(bound), []);
    }
  });
});
