// The resources of a recorded list/watch stream (bench/large/): where the API
// server serves each, and the file the generator writes it to. The replay
// server (replay.ts) serves exactly these paths.

import { ETCD_CLUSTER } from '../../src/api/v1alpha1/etcdcluster.ts';
import { NETWORK_TOPOLOGY } from '../../src/api/v1alpha1/networktopology.ts';
import { SCHEDULING_POLICY } from '../../src/api/v1alpha1/schedulingpolicy.ts';

export interface RecordedResource {
  /** The stream file's name, without `.jsonl`. */
  readonly name: string;
  readonly path: string;
  readonly apiVersion: string;
  readonly listKind: string;
}

export const RESOURCES: readonly RecordedResource[] = [
  { name: 'nodes', path: '/api/v1/nodes', apiVersion: 'v1', listKind: 'NodeList' },
  { name: 'namespaces', path: '/api/v1/namespaces', apiVersion: 'v1', listKind: 'NamespaceList' },
  {
    name: 'endpointslices',
    path: '/apis/discovery.k8s.io/v1/endpointslices',
    apiVersion: 'discovery.k8s.io/v1',
    listKind: 'EndpointSliceList',
  },
  { name: 'control-plane-pods', path: '/api/v1/namespaces/kube-system/pods', apiVersion: 'v1', listKind: 'PodList' },
  { name: 'pods', path: '/api/v1/pods', apiVersion: 'v1', listKind: 'PodList' },
  {
    name: 'resourceslices',
    path: '/apis/resource.k8s.io/v1/resourceslices',
    apiVersion: 'resource.k8s.io/v1',
    listKind: 'ResourceSliceList',
  },
  {
    name: 'noderesourcetopologies',
    path: '/apis/topology.node.k8s.io/v1alpha2/noderesourcetopologies',
    apiVersion: 'topology.node.k8s.io/v1alpha2',
    listKind: 'NodeResourceTopologyList',
  },
  {
    name: NETWORK_TOPOLOGY.plural,
    path: `/apis/${NETWORK_TOPOLOGY.apiVersion}/${NETWORK_TOPOLOGY.plural}`,
    apiVersion: NETWORK_TOPOLOGY.apiVersion,
    listKind: `${NETWORK_TOPOLOGY.kind}List`,
  },
  {
    name: ETCD_CLUSTER.plural,
    path: `/apis/${ETCD_CLUSTER.apiVersion}/${ETCD_CLUSTER.plural}`,
    apiVersion: ETCD_CLUSTER.apiVersion,
    listKind: `${ETCD_CLUSTER.kind}List`,
  },
  {
    name: SCHEDULING_POLICY.plural,
    path: `/apis/${SCHEDULING_POLICY.apiVersion}/${SCHEDULING_POLICY.plural}`,
    apiVersion: SCHEDULING_POLICY.apiVersion,
    listKind: `${SCHEDULING_POLICY.kind}List`,
  },
];

/** Items per recorded List page: the replay server serves these pages as they are (`limit` at least this). */
export const PAGE_ITEMS = 500;
