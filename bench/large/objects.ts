// The objects of a large cluster as its API server would send them: Nodes with
// their image lists and managedFields, the Pods of ReplicaSets bound over the
// nodes, ResourceSlices on GPU nodes, NodeResourceTopology on a tenth of the
// nodes. Built on bench/cluster.ts's seeded cluster, with racks and blocks.

import { SCHEDULING_POLICY } from '../../src/api/v1alpha1/schedulingpolicy.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { node, nodeName, nodeResourceTopology, zoneOf } from '../cluster.ts';

/** A rack is 40 nodes of one zone, a block 10 racks (zones take nodes in turn). */
const RACK_NODES = 40;
export const CANARY_PRODUCT = 'BENCH-CANARY';
/** Namespaces whose Pods fill the cluster: team-0 … team-39, as bench/cluster.ts names them. */
const TEAMS = 40;
const REPLICAS = 10;

function managedFields(manager: string, time: string, fields: object): object[] {
  return [
    {
      manager,
      operation: 'Update',
      apiVersion: 'v1',
      time,
      fieldsType: 'FieldsV1',
      fieldsV1: fields,
    },
  ];
}

const IMAGES = Array.from({ length: 16 }, (_, i) => ({
  names: [
    `registry.example.com/team-${i}/service@sha256:${i.toString(16).padStart(64, 'a')}`,
    `registry.example.com/team-${i}/service:v1.${i}.0`,
  ],
  sizeBytes: 50_000_000 + i * 1_234_567,
}));

export function largeNode(index: number, rand: () => number): KubeObject {
  const object = node(index, rand);
  const inZone = Math.floor(index / 6);
  Object.assign(object.metadata!.labels!, {
    'topogate.dev/rack': `${zoneOf(index)}-rack-${Math.floor(inZone / RACK_NODES)}`,
    'topogate.dev/block': `${zoneOf(index)}-block-${Math.floor(inZone / (10 * RACK_NODES))}`,
  });
  (object.metadata as Record<string, unknown>).managedFields = managedFields('kubelet', '2026-12-01T00:00:00Z', {
    'f:status': { 'f:conditions': {}, 'f:images': {}, 'f:nodeInfo': {}, 'f:allocatable': {}, 'f:capacity': {} },
  });
  (object.status as Record<string, unknown>).images = IMAGES;
  return object;
}

/** A Node as its canary event leaves it: its GPU product renamed (on) or back (off). */
export function canaryNode(base: KubeObject, on: boolean, resourceVersion: number): KubeObject {
  const labels = { ...base.metadata!.labels! };
  if (on) labels['nvidia.com/gpu.product'] = CANARY_PRODUCT;
  return { ...base, metadata: { ...base.metadata!, labels, resourceVersion: String(resourceVersion) } };
}

export function largeNrt(index: number, rand: () => number): KubeObject {
  return nodeResourceTopology(index, rand);
}

export function gpuSlice(nodeIndex: number): KubeObject {
  const nodeNamed = nodeName(nodeIndex);
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name: `${nodeNamed}-gpu.nvidia.com`, resourceVersion: String(400_000 + nodeIndex) },
    spec: {
      driver: 'gpu.nvidia.com',
      nodeName: nodeNamed,
      pool: { name: nodeNamed, generation: 1, resourceSliceCount: 1 },
      devices: Array.from({ length: 8 }, (_, device) => ({
        name: `gpu-${device}`,
        attributes: {
          productName: { string: 'NVIDIA H100 80GB HBM3' },
          'resource.kubernetes.io/pcieRoot': { string: `pci0000:${device}` },
        },
        capacity: { memory: { value: '81559Mi' } },
      })),
    },
  };
}

const CPU_REQUESTS = ['100m', '250m', '500m', '1', '2'] as const;
const MEMORY_REQUESTS = ['128Mi', '256Mi', '512Mi', '1Gi', '4Gi'] as const;

/** Pod `index` of the cluster: the `index % REPLICAS`th replica of ReplicaSet `index / REPLICAS`. */
export function largePod(index: number, nodes: number, resourceVersion: number, phase = 'Running'): KubeObject {
  const set = Math.floor(index / REPLICAS);
  const namespace = `team-${set % TEAMS}`;
  const app = `svc-${set}`;
  const hash = (set * 2654435761) >>> 0;
  const template = hash.toString(36).slice(0, 9);
  const name = `${app}-${template}-${(index % REPLICAS).toString(36)}${(index * 7919).toString(36).slice(-4)}`;
  const uid = `${index.toString(16).padStart(8, '0')}-7c1e-4b8a-9d2f-${hash.toString(16).padStart(12, '0')}`;
  const unbound = phase === 'Pending';
  const nodeIndex = (index * 104729 + set) % nodes;
  const cpu = CPU_REQUESTS[set % CPU_REQUESTS.length]!;
  const memory = MEMORY_REQUESTS[(set >> 2) % MEMORY_REQUESTS.length]!;
  const created = '2026-12-01T08:00:00Z';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: `${app}-${template}-`,
      namespace,
      uid,
      resourceVersion: String(resourceVersion),
      creationTimestamp: created,
      labels: { app, 'app.kubernetes.io/name': app, 'pod-template-hash': template },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${app}-${template}`,
          uid: `rs-${hash.toString(16)}-0000-4000-8000-000000000000`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: managedFields('kube-controller-manager', created, {
        'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {} }, 'f:ownerReferences': {} },
        'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:resources': {} } } },
      }),
    },
    spec: {
      ...(unbound ? {} : { nodeName: nodeName(nodeIndex) }),
      containers: [
        {
          name: 'app',
          image: `registry.example.com/${namespace}/${app}:v1.4.${set % 17}`,
          ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
          resources: { requests: { cpu, memory }, limits: { memory } },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
          volumeMounts: [
            {
              name: `kube-api-access-${name.slice(-5)}`,
              readOnly: true,
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
            },
          ],
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      schedulerName: 'default-scheduler',
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
    status: unbound
      ? { phase, qosClass: 'Burstable' }
      : {
          phase,
          hostIP: `10.${(nodeIndex >> 16) & 255}.${(nodeIndex >> 8) & 255}.${nodeIndex & 255}`,
          podIP: `100.${64 + ((index >> 16) & 63)}.${(index >> 8) & 255}.${index & 255}`,
          startTime: created,
          qosClass: 'Burstable',
          conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(
            (type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: created }),
          ),
          containerStatuses: [
            {
              name: 'app',
              ready: true,
              restartCount: 0,
              started: true,
              image: `registry.example.com/${namespace}/${app}:v1.4.${set % 17}`,
              imageID: `registry.example.com/${namespace}/${app}@sha256:${hash.toString(16).padStart(64, '0')}`,
              containerID: `containerd://${uid.replaceAll('-', '')}${hash.toString(16)}`,
              state: { running: { startedAt: created } },
            },
          ],
        },
  };
}

/** The canary policy: a GPU Pod in namespace `canary` needs a node whose product is the canary's, or is refused. */
export function canaryPolicy(): KubeObject {
  return {
    apiVersion: SCHEDULING_POLICY.apiVersion,
    kind: SCHEDULING_POLICY.kind,
    metadata: { name: 'bench-canary' },
    spec: {
      priority: 1000,
      match: { namespaces: ['canary'], resources: ['nvidia.com/gpu'] },
      onUnsatisfiable: 'Reject',
      rules: { gpu: { products: [CANARY_PRODUCT], mode: 'Required' } },
    },
  };
}
