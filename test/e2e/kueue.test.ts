// The placement benchmark's Kueue TAS arm, small, on the real control plane: the Kueue v0.17.0 manager
// out of cluster (its CRDs, webhooks by loopback URL, the pod integration for one namespace) admits a
// pod group that requires one rack into the only rack with room for all of it, the scheduler binds it
// there, and a group no rack can hold stays gated (Pending, though single Pods of it would fit).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { BLOCK } from '../../bench/placement/fabric.ts';
import { FLEET, FLEET_LABEL, GPU_TAINT, RACK, ZONE } from '../../bench/placement/fleet.ts';
import { startKueueArm } from '../../bench/placement/fabric-run.ts';
import { kueueAdmission } from '../../bench/placement/kueue-admission.ts';
import { kueuePodGroup, TRAIN_NAMESPACE } from '../../bench/placement/trace.ts';
import type { Cluster } from './harness/cluster.ts';
import { coreApi, createNodes, kubectl, kubectlOk } from './harness/kube.ts';
import type { Kueue } from './harness/kueue.ts';
import { releaseKueueFinalizers } from './harness/kueue.ts';
import { sharedCluster } from './harness/shared.ts';
import { applyAll } from './harness/topogate.ts';
import { waitFor } from './harness/wait.ts';

const racks = ['k-r1', 'k-r2'];
const nodeName = (rack: string, n: number) => `kueue-${rack}-n${n}`;

// The first run builds the manager into the binary cache (about 7 min from a cold Go cache here).
describe('Kueue TAS arm', { timeout: 1_200_000 }, () => {
  let cluster: Cluster;
  let api: CoreV1Api;
  let kueue: Kueue | undefined;

  before(async () => {
    cluster = await sharedCluster('kueue');
    api = coreApi(cluster);
    await createNodes(
      api,
      racks.flatMap((rack) =>
        [1, 2].map((n) => ({
          name: nodeName(rack, n),
          labels: {
            [ZONE]: 'k-zone',
            [BLOCK]: 'k-block',
            [RACK]: rack,
            [FLEET_LABEL]: FLEET,
            'nvidia.com/gpu.present': 'true',
          },
          allocatable: { cpu: '96', memory: '768Gi', 'nvidia.com/gpu': '8' },
          taints: [{ key: GPU_TAINT, value: 'present', effect: 'NoSchedule' }],
        })),
      ),
    );
    await applyAll(cluster, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: TRAIN_NAMESPACE } }]);
    // Another tenant holds 6 GPUs in rack 1: it has 10 left, rack 2 has 16.
    await api.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'kueue-tenant' },
        spec: {
          nodeName: nodeName('k-r1', 1),
          tolerations: [{ key: GPU_TAINT, operator: 'Exists' }],
          containers: [
            {
              name: 'main',
              image: 'registry.k8s.io/pause:3.10',
              resources: { requests: { 'nvidia.com/gpu': '6' }, limits: { 'nvidia.com/gpu': '6' } },
            },
          ],
        },
      },
    });
    kueue = await startKueueArm(cluster, cluster.dir);
  });

  after(async () => {
    await kueue?.stop();
    await releaseKueueFinalizers(cluster, TRAIN_NAMESPACE);
    await kubectl(cluster, ['delete', 'namespace', TRAIN_NAMESPACE, '--wait=false']);
    await kubectl(cluster, ['delete', 'pod', '-n', 'default', 'kueue-tenant', '--force', '--grace-period=0']);
    await kubectl(cluster, ['delete', 'node', ...racks.flatMap((rack) => [1, 2].map((n) => nodeName(rack, n)))]);
    await cluster.stop();
  });

  const gangPods = async (name: string): Promise<V1Pod[]> =>
    (
      await api.listNamespacedPod({
        namespace: TRAIN_NAMESPACE,
        labelSelector: `kueue.x-k8s.io/pod-group-name=${name}`,
      })
    ).items;

  test('a gang that requires one rack is admitted into the rack that holds it whole, and bound there', async () => {
    await applyAll(cluster, kueuePodGroup('fits', 12));
    await waitFor(async () => (await gangPods('fits')).every((pod) => pod.spec?.nodeName), {
      what: 'the gang of 12 bound',
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    const pods = await gangPods('fits');
    assert.equal(pods.length, 12);
    assert.deepEqual(new Set(pods.map((pod) => pod.spec!.nodeName!.split('-n')[0])), new Set(['kueue-k-r2']));
    // Kueue pins each Pod to the node it chose (the Topology's lowest level is the hostname).
    assert.ok(pods.every((pod) => pod.spec?.nodeSelector?.['kubernetes.io/hostname'] === pod.spec?.nodeName));
    const admission = kueueAdmission(await kueue!.metrics());
    assert.equal(admission.admitted, 1);
    assert.ok(admission.attempts >= 1 && admission.attemptSeconds > 0);
  });

  test('a gang no rack can hold stays gated, though a single Pod of it would fit', async () => {
    await applyAll(cluster, kueuePodGroup('too-big', 12));
    await waitFor(
      async () => {
        const workloads = JSON.parse(
          await kubectlOk(cluster, ['get', 'workloads.kueue.x-k8s.io', '-n', TRAIN_NAMESPACE, '-o', 'json']),
        ) as { items: { status?: { conditions?: { type: string; status: string; reason: string }[] } }[] };
        return workloads.items.some((w) =>
          w.status?.conditions?.some((c) => c.type === 'QuotaReserved' && c.status === 'False'),
        );
      },
      { what: 'the second gang found inadmissible', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    const pods = await gangPods('too-big');
    assert.equal(pods.length, 12);
    assert.ok(pods.every((pod) => !pod.spec?.nodeName && (pod.spec?.schedulingGates?.length ?? 0) > 0));
  });
});
