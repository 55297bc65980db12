import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../../src/kube/types.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { slim } from '../../../src/kube-client/slim.ts';
import { loadTopologyPaths } from '../../../src/sources/topology/files.ts';
import { podOf, usageOf } from '../../../src/topology/read/pod-record.ts';
import { readPodUsage } from '../../../src/topology/read/pod-usage.ts';

const fixtures = (path: string) =>
  fileURLToPath(new URL(`../../../../shared/fixtures/real-world/${path}`, import.meta.url));

describe('slim', () => {
  it('drops the Node image list and bookkeeping, and the model built from what is left is the same', async () => {
    const nodes = await loadTopologyPaths([fixtures('nodes')]);
    const slimmed = nodes.map((node) => slim('nodes', node));
    const t4 = slimmed.find((n) => n.metadata?.name === 'qa-mig-worker-gpu-1')!;
    assert.equal((t4.status as Record<string, unknown>).images, undefined);
    assert.ok(
      JSON.stringify(t4).length <
        JSON.stringify(nodes.find((n) => n.metadata?.name === 'qa-mig-worker-gpu-1')).length / 2,
    );
    assert.equal((slimmed[0]!.metadata as Record<string, unknown>).managedFields, undefined);
    for (const node of slimmed) {
      assert.deepEqual(
        Object.keys(node.status as object).filter((key) => !['allocatable', 'conditions', 'addresses'].includes(key)),
        [],
      );
      assert.equal((node.metadata as Record<string, unknown>).annotations, undefined);
    }
    const full = buildSnapshot(nodes, { now: 0 });
    const lean = buildSnapshot(slimmed, { now: 0 });
    for (const slot of full.nodes.all().slots()) assert.deepEqual(lean.nodes.bySlot(slot), full.nodes.bySlot(slot));
  });

  it('keeps other annotations, drops kubectl’s last-applied copy and a control-plane Pod’s status', async () => {
    const [pod] = await loadTopologyPaths([fixtures('etcd/kubescape-regolibrary.kubeadm-etcd-static-pod.yaml')]);
    const withBookkeeping: KubeObject = {
      ...pod!,
      metadata: {
        ...pod!.metadata,
        annotations: { ...pod!.metadata?.annotations, 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      },
      status: { phase: 'Running' },
    };
    const slimmed = slim('controlPlanePods', withBookkeeping);
    assert.deepEqual(slimmed.metadata?.annotations, {
      'kubeadm.kubernetes.io/etcd.advertise-client-urls': 'https://192.168.49.2:2379',
    });
    assert.equal(slimmed.status, undefined);
    assert.deepEqual(slimmed.spec, pod!.spec);
    const bare = slim('namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'x', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
    });
    assert.deepEqual(bare.metadata, { name: 'x' });
  });

  it('keeps of a Pod its name, resourceVersion and usage; given back as a Pod, it reads the same', async () => {
    const pods = (await loadTopologyPaths([fixtures('pods')])).filter((object) => object.kind === 'Pod');
    const unbound = pods.map((pod) => ({ ...pod, spec: { ...(pod.spec as object), nodeName: undefined } }));
    const finished = pods.map((pod) => ({ ...pod, status: { phase: 'Succeeded' } }));
    let held = 0;
    for (const pod of [...pods, ...unbound, ...finished]) {
      const usage = readPodUsage(pod);
      const kept = slim('pods', pod);
      assert.deepEqual(usageOf(kept), usage, `${pod.metadata?.name}`);
      assert.deepEqual(Object.keys(kept), ['metadata'], 'nothing but metadata is enumerable');
      const { name, namespace, resourceVersion } = pod.metadata ?? {};
      assert.deepEqual(kept.metadata, JSON.parse(JSON.stringify({ name, namespace, resourceVersion })));
      assert.deepEqual(readPodUsage(JSON.parse(JSON.stringify(podOf(kept))) as KubeObject), usage, 'as a Pod');
      if (usage?.node === undefined && usage !== undefined) held++;
    }
    assert.ok(held >= 2, `${held} of the unbound fixtures are held to a node label`);
  });

  it('takes no usage from JSON that claims to be read already', () => {
    const forged = JSON.parse('{"metadata":{"name":"p"},"spec":{"nodeName":"n1"},"Symbol(topogate.podUsage)":{}}');
    assert.equal(usageOf(forged as KubeObject)?.node, 'n1');
  });
});
