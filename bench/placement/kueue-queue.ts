// What the Kueue TAS arm sets up before its gangs, as Kueue's docs for
// topology-aware scheduling recommend: a Topology of the fabric's levels, a
// ResourceFlavor of the GPU nodes that names it, one ClusterQueue whose quota
// no trace reaches (so quota drops out and only placement is compared), one
// LocalQueue in the training namespace. Pure.

import { HOSTNAME_LABEL } from '../../src/kube/labels.ts';
import { BLOCK } from './fabric.ts';
import { FLEET, FLEET_LABEL, GPU_TAINT, RACK, ZONE } from './fleet.ts';

export const KUEUE_QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';
export const KUEUE_LOCAL_QUEUE = 'fabric';
/** The Topology, ResourceFlavor and ClusterQueue are named alike. */
export const KUEUE_CLUSTER_QUEUE = 'fabric';
const API = 'kueue.x-k8s.io/v1beta2';
const NAME = KUEUE_CLUSTER_QUEUE;
/** Far above what the fabric has: the queue never holds a gang back for quota. */
const UNLIMITED = { cpu: '1000000', memory: '1000Ti', 'nvidia.com/gpu': '1000000' };

/** The objects in the order they must be created (each names the one before). */
export function kueueQueueObjects(namespace: string): object[] {
  return [
    {
      apiVersion: API,
      kind: 'Topology',
      metadata: { name: NAME },
      // The lowest level the hostname: Kueue then picks the nodes itself and pins each Pod to one.
      spec: { levels: [ZONE, BLOCK, RACK, HOSTNAME_LABEL].map((nodeLabel) => ({ nodeLabel })) },
    },
    {
      apiVersion: API,
      kind: 'ResourceFlavor',
      metadata: { name: NAME },
      spec: {
        nodeLabels: { [FLEET_LABEL]: FLEET, 'nvidia.com/gpu.present': 'true' },
        nodeTaints: [{ key: GPU_TAINT, value: 'present', effect: 'NoSchedule' }],
        topologyName: NAME,
      },
    },
    {
      apiVersion: API,
      kind: 'ClusterQueue',
      metadata: { name: NAME },
      spec: {
        namespaceSelector: {},
        resourceGroups: [
          {
            coveredResources: Object.keys(UNLIMITED),
            flavors: [
              {
                name: NAME,
                resources: Object.entries(UNLIMITED).map(([name, nominalQuota]) => ({ name, nominalQuota })),
              },
            ],
          },
        ],
      },
    },
    {
      apiVersion: API,
      kind: 'LocalQueue',
      metadata: { name: KUEUE_LOCAL_QUEUE, namespace },
      spec: { clusterQueue: NAME },
    },
  ];
}
