import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import type { KubeObject } from '../../../src/kube/types.ts';
import { podRequest } from '../../../src/kube/podFacts.ts';
import { compile } from '../../../src/policy/compiler.ts';
import { decide } from '../../../src/policy/engine.ts';
import type { Decision, GpuRule } from '../../../src/policy/types.ts';
import type { Device, TopologySnapshot } from '../../../src/topology/model.ts';
import { buildSnapshot } from '../../../src/topology/build.ts';
import { decideIn, NOW, node, OPTIONS, pod, policy } from './engine-cluster.ts';

const dra = new URL('../../../../shared/fixtures/real-world/dra/', import.meta.url);

/** The NVIDIA GPU DRA driver's slice (H200) and DRANET's NIC slice, as published, on the named node. */
function slices(nodeName: string): KubeObject[] {
  const read = (file: string) =>
    (parse(readFileSync(new URL(file, dra), 'utf8').replaceAll('<node-name>', nodeName)) as { items: KubeObject[] })
      .items;
  return [
    ...read('ai-on-gke.nvidia-gpu-dra-driver.H200.ResourceSliceList.v1.excerpt.yaml'),
    ...read('ai-on-gke.dranet.NIC.ResourceSliceList.v1.excerpt.indented.yaml'),
  ].map((slice, index) => ({ ...slice, metadata: { ...slice.metadata, name: `${nodeName}-${index}` } }));
}

function cluster(): KubeObject[] {
  return [
    node('gfd-a100', {
      'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB',
      'nvidia.com/gpu.memory': '81920',
      'nvidia.com/gpu.count': '8',
    }),
    node('dra-h200', {}),
    node('plain', {}),
    ...slices('dra-h200'),
  ];
}

const gpu = (products: string[], minMemoryMiB?: number): GpuRule => ({
  products,
  resource: 'nvidia.com/gpu',
  mode: 'Required',
  weight: 100,
  ...(minMemoryMiB ? { minMemoryMiB } : {}),
});

function required(decision: Decision): any[] {
  const affinity = (decision.patch.find((op) => op.path === '/spec/affinity') as { value?: any } | undefined)?.value;
  return affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions;
}

describe('gpu rule over ResourceSlices', () => {
  test('reads a real driver slice: product, memory in MiB, PCIe root; a NIC has no product', () => {
    const devices = buildSnapshot(cluster(), { now: NOW }).devices.get('dra-h200')!;
    const gpu0 = devices.find((device) => device.name === 'gpu-0')!;
    assert.deepEqual(gpu0, {
      driver: 'gpu.nvidia.com',
      name: 'gpu-0',
      productName: 'NVIDIA H200',
      memoryMiB: 143771,
      pcieRoot: 'pci0000:8c',
    });
    const nics = devices.filter((device) => device.driver === 'dra.net');
    assert.ok(nics.length > 0);
    assert.ok(nics.every((nic) => nic.productName === undefined && nic.pcieRoot !== undefined));
  });

  test('a slice device qualifies its node as GFD labels do; globs read the label form (dashes)', () => {
    const decision = decideIn([policy('h200', { gpu: gpu(['NVIDIA-H200*']) })], pod(), 'default', cluster(), {
      explain: true,
    });
    assert.deepEqual(required(decision), [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['dra-h200'] }]);
    const detail = (decision.trace as any).policies[0].rules[0].detail.join('\n');
    assert.match(detail, /GPU Feature Discovery labels qualify 0 node\(s\)/);
    assert.match(
      detail,
      /ResourceSlice devices qualify 1 node\(s\): dra-h200 \(1 × gpu.nvidia.com NVIDIA H200, 143771 MiB\)/,
    );
  });

  test('both sources: every qualifying node by hostname; labels alone keep the label requirements', () => {
    const both = decideIn([policy('big', { gpu: gpu(['*'], 80000) })], pod(), 'default', cluster());
    assert.deepEqual(required(both), [
      { key: 'kubernetes.io/hostname', operator: 'In', values: ['dra-h200', 'gfd-a100'] },
    ]);
    const labels = decideIn([policy('a100', { gpu: gpu(['NVIDIA-A100*']) })], pod(), 'default', cluster());
    assert.deepEqual(required(labels), [
      { key: 'nvidia.com/gpu.product', operator: 'In', values: ['NVIDIA-A100-SXM4-80GB'] },
    ]);
  });

  test('memory and count floors apply to slice devices too', () => {
    const tooBig = decideIn([policy('huge', { gpu: gpu(['NVIDIA-H200*'], 200000) })], pod(), 'default', cluster());
    assert.deepEqual(tooBig.patch, []);
    assert.ok(tooBig.warnings.some((w) => w.includes('no GPU product in the model matches')));
    const two = pod({ containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': '2' } } }] });
    // The fixture's slice shows one of the node's GPUs: a Pod asking for two is not placed there.
    const decision = decideIn([policy('two', { gpu: gpu(['NVIDIA-H200*']) })], two, 'default', cluster());
    assert.deepEqual(decision.patch, []);
    assert.ok(decision.warnings.some((w) => w.includes('unsatisfiable')));
  });
});

/** The devices map, with each node whose devices are read named in `read` ('*': the whole map). */
function countingDevices(devices: TopologySnapshot['devices']): {
  devices: TopologySnapshot['devices'];
  read: string[];
} {
  const read: string[] = [];
  const counted: ReadonlyMap<string, readonly Device[]> = {
    get size() {
      return devices.size;
    },
    get: (name) => (read.push(name), devices.get(name)),
    has: (name) => devices.has(name),
    forEach: (each) => devices.forEach(each),
    entries: () => (read.push('*'), devices.entries()),
    keys: () => devices.keys(),
    values: () => (read.push('*'), devices.values()),
    [Symbol.iterator]: () => (read.push('*'), devices.entries()),
  };
  return { devices: counted, read };
}

describe('gpu rule over ResourceSlices at scale', () => {
  test("a compile reads the devices of nodes with a matching product, and none again for a Node's change", () => {
    const objects = [
      ...cluster(),
      node('dra-h200-b', {}),
      ...slices('dra-h200-b'),
      node('dra-nic', {}),
      ...slices('dra-nic').filter((slice) => JSON.stringify(slice).includes('dra.net')),
    ];
    const rule = policy('h200', { gpu: gpu(['NVIDIA-H200*']) });
    const snapshot = buildSnapshot(objects, { now: NOW });
    const { devices, read } = countingDevices(snapshot.devices);
    assert.equal(
      decide(podRequest(pod(), 'default'), compile([rule], { ...snapshot, devices }), OPTIONS).allowed,
      true,
    );
    // One pass indexes the devices map by product; then only the H200 nodes' devices are read, not the NIC node's.
    assert.deepEqual(read.sort(), ['*', 'dra-h200', 'dra-h200-b']);
    read.length = 0;

    // A Node's labels changed: a new snapshot with the same devices map reads no device again.
    const relabelled = objects.map((object) =>
      object.kind === 'Node' && object.metadata?.name === 'plain'
        ? { ...object, metadata: { ...object.metadata, labels: { team: 'b' } } }
        : object,
    );
    const next = { ...buildSnapshot(relabelled, { now: NOW }), devices };
    assert.equal(decide(podRequest(pod(), 'default'), compile([rule], next), OPTIONS).allowed, true);
    assert.deepEqual(read, []);
  });
});
