// What topogate says it did, it did, on the real control plane (API server, scheduler, controller-manager):
// - Pods the second plane gated while topogate was down (a 6-replica Deployment under a DoNotSchedule zone
//   spread, maxSkew 1) come out within maxSkew, though no spread constraint can be added to them: each is pinned
//   to the least loaded zone, and its decision record says "pinned", never "added";
// - a gated Pod whose Reject policy no node meets is released after --defer-max WITH that policy's required
//   terms: it waits, Pending, at the scheduler, never placed where the policy forbids;
// - under load (a budget every request overruns) the default install leaves no Pod unplaced: each is deferred,
//   then placed by its policy.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import type { Cluster } from './harness/cluster.ts';
import { startCluster } from './harness/cluster.ts';
import { coreApi, createNodes, kubectl, kubectlOk } from './harness/kube.ts';
import type { Topogate } from './harness/topogate.ts';
import { GATE, gatesOf, untilDryRunDeferred } from './harness/gates.ts';
import { applyAll, installTopogateCrds, registerWebhook, startTopogate, topogateCli } from './harness/topogate.ts';

const ZONE = 'topology.kubernetes.io/zone';
const PRODUCT = 'nvidia.com/gpu.product';

const policies = {
  zones: `apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: zones}
spec:
  match: {namespaces: [spread]}
  rules:
    spread:
      - {topologyKey: ${ZONE}, maxSkew: 1, whenUnsatisfiable: DoNotSchedule}
`,
  h200: `apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: h200-only}
spec:
  onUnsatisfiable: Reject
  match: {namespaces: [reject]}
  rules:
    nodeLabels:
      required:
        - {key: ${PRODUCT}, operator: In, values: [NVIDIA-H200]}
`,
  loaded: `apiVersion: topogate.dev/v1alpha1
kind: SchedulingPolicy
metadata: {name: zone-b}
spec:
  match: {namespaces: [loaded]}
  rules:
    nodeLabels:
      required:
        - {key: ${ZONE}, operator: In, values: [b]}
`,
};

const podSpec = { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] };
const zoneOf = (node: string) => node.split('-')[0]!;
const record = (pod: V1Pod) => JSON.parse(pod.metadata?.annotations?.['topogate.dev/decision'] ?? 'null');

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    assert.ok(Date.now() < deadline, `${what}: not within ${timeoutMs} ms`);
    await sleep(250);
  }
}

describe('what topogate says it did, it did', { timeout: 600_000 }, () => {
  let cluster: Cluster;
  let api: CoreV1Api;
  let topogate: Topogate;

  before(async () => {
    cluster = await startCluster();
    api = coreApi(cluster);
    await installTopogateCrds(cluster);
    // Zone a has three times the nodes: left to itself, the scheduler piles replicas there (4/1/1).
    await createNodes(
      api,
      ['a-1', 'a-2', 'a-3', 'b-1', 'c-1'].map((name) => ({
        name,
        labels: { [ZONE]: zoneOf(name), [PRODUCT]: 'NVIDIA-H100' },
      })),
    );
    await applyAll(
      cluster,
      ['spread', 'reject', 'loaded'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
    );
    const dir = join(cluster.dir, 'truth-policies');
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(policies)) writeFileSync(join(dir, `${name}.yaml`), text);
    // The default install's serve (--defer overrun), on a machine so loaded that every request overruns.
    topogate = await startTopogate({
      cluster,
      policies: dir,
      serveArgs: ['--budget-ms', '0.000001', '--defer-max', '15s'],
    });
    await registerWebhook(cluster, topogate);
  });

  after(async () => {
    await topogate?.stop();
    await cluster?.stop();
  });

  test('under load, no Pod is left unplaced: each is deferred, then placed by its policy', async (t) => {
    await untilDryRunDeferred(cluster, 'loaded', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'probe' },
      spec: podSpec,
    });
    const started = Date.now();
    const names = Array.from({ length: 20 }, (_, index) => `late-${index}`);
    await Promise.all(
      names.map((name) =>
        api.createNamespacedPod({
          namespace: 'loaded',
          body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'late' } }, spec: podSpec },
        }),
      ),
    );
    const pods = await until('20 loaded Pods bound', 120_000, async () => {
      const { items } = await api.listNamespacedPod({ namespace: 'loaded' });
      return items.length === names.length && items.every((pod) => pod.spec?.nodeName) ? items : undefined;
    });
    // A request the loop reaches at once (no time spent before it, by the clock that discounts the loop's lag)
    // is decided at once; the others are deferred. Either way, placed.
    const deferred = pods.filter((pod) => pod.metadata?.annotations?.['topogate.dev/deferred'] === 'budget');
    const report = `under load: ${deferred.length} of ${names.length} Pods deferred for the budget, all placed and bound ${Date.now() - started} ms after creation`;
    t.diagnostic(report);
    console.log(report);
    assert.ok(deferred.length > 0, 'the budget deferred some Pods: else this test proves nothing');
    for (const pod of pods) {
      assert.equal(pod.metadata?.annotations?.['topogate.dev/policies'], 'zone-b', pod.metadata?.name);
      assert.equal(zoneOf(pod.spec!.nodeName!), 'b', `${pod.metadata?.name} on ${pod.spec?.nodeName}`);
    }
  });

  test('gated while topogate was down: 6 replicas come out within maxSkew, and the Reject Pod keeps its terms', async (t) => {
    const plane = parseAllDocuments(await topogateCli(['manifests', '--gate-plane']))
      .map((document) => document.toJS() as { kind: string })
      .filter((object) => object.kind.startsWith('MutatingAdmissionPolicy'));
    await applyAll(cluster, plane);
    for (const namespace of ['spread', 'reject'])
      await kubectlOk(cluster, ['label', 'namespace', namespace, `${GATE}=gated`]);
    await topogate.stop();
    for (let attempt = 0; ; attempt++) {
      const probe = await kubectl(
        cluster,
        ['create', '-n', 'spread', '--dry-run=server', '-o', 'json', '-f', '-'],
        JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probe' }, spec: podSpec }),
      );
      if (probe.code === 0 && gatesOf(JSON.parse(probe.stdout) as V1Pod).includes(GATE)) break;
      assert.ok(attempt < 120, 'the MutatingAdmissionPolicy never gated a dry run');
      await sleep(250);
    }

    await applyAll(cluster, [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'spread' },
        spec: {
          replicas: 6,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: podSpec },
        },
      },
    ]);
    await api.createNamespacedPod({
      namespace: 'reject',
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'trainer', labels: { app: 'trainer' } }, spec: podSpec },
    });
    await until('6 gated replicas', 60_000, async () => {
      const { items } = await api.listNamespacedPod({ namespace: 'spread' });
      return items.length === 6 && items.every((pod) => gatesOf(pod).includes(GATE)) ? true : undefined;
    });

    const started = Date.now();
    await topogate.start();
    const replicas = await until('6 replicas bound', 90_000, async () => {
      const { items } = await api.listNamespacedPod({ namespace: 'spread' });
      return items.length === 6 && items.every((pod) => pod.spec?.nodeName) ? items : undefined;
    });
    const counts = new Map<string, number>([
      ['a', 0],
      ['b', 0],
      ['c', 0],
    ]);
    for (const pod of replicas) counts.set(zoneOf(pod.spec!.nodeName!), counts.get(zoneOf(pod.spec!.nodeName!))! + 1);
    const report = `gated while down: 6 replicas bound ${Date.now() - started} ms after start, zones ${[...counts.values()].join('/')}`;
    t.diagnostic(report);
    console.log(report);
    assert.ok(Math.max(...counts.values()) - Math.min(...counts.values()) <= 1, report);
    for (const pod of replicas) {
      const name = pod.metadata?.name;
      assert.equal(pod.spec?.topologySpreadConstraints, undefined, `${name}: none can be added after creation`);
      const decided = record(pod);
      assert.deepEqual(decided.policies, [{ name: 'zones', rules: { 'spread[0]': 'pinned' } }], name);
      assert.equal(decided.added.spread, undefined, `${name}: the record claims no spread it does not carry`);
      assert.deepEqual(decided.added.required, [{ key: ZONE, operator: 'In', values: [zoneOf(pod.spec!.nodeName!)] }]);
    }
    // Events are written after each release, apart from it: the last may land after the Pods are seen bound.
    const placed = await until('a Placed Event for each replica', 30_000, async () => {
      const { items } = await api.listNamespacedEvent({ namespace: 'spread', fieldSelector: 'reason=Placed' });
      return items.length >= 6 ? items : undefined;
    });
    assert.equal(placed.length, 6);

    // The Reject Pod: no node has an H200, so it waits behind the gate, then (--defer-max 15s) is released with
    // the policy's required term, and stays Pending at the scheduler.
    const trainer = await until('the Reject Pod released', 90_000, async () => {
      const pod = await api.readNamespacedPod({ namespace: 'reject', name: 'trainer' });
      return gatesOf(pod).length === 0 ? pod : undefined;
    });
    // Plain JSON, not the client's classes.
    const terms = JSON.parse(
      JSON.stringify(trainer.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
    ).nodeSelectorTerms;
    assert.deepEqual(terms, [{ matchExpressions: [{ key: PRODUCT, operator: 'In', values: ['NVIDIA-H200'] }] }]);
    assert.deepEqual(record(trainer).added.required, terms![0]!.matchExpressions);
    await sleep(5_000);
    const later = await api.readNamespacedPod({ namespace: 'reject', name: 'trainer' });
    assert.equal(later.spec?.nodeName, undefined, `placed on ${later.spec?.nodeName}, where the policy forbids`);
    const events: CoreV1Event[] = (await api.listNamespacedEvent({ namespace: 'reject' })).items;
    assert.ok(
      events.some((event) => event.reason === 'PlacementUnsatisfiable' && /policy h200-only/.test(event.message ?? '')),
      events.map((event) => `${event.reason}: ${event.message}`).join('\n'),
    );
  });
});
