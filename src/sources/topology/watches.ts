// What each watched source lists and watches. List items come back without
// apiVersion and kind (and as typed objects): they are given both and turned
// back into plain JSON, the shape watch events and files have; the informer
// slims them as it slims watch events.

import { CoreV1Api, CustomObjectsApi, DiscoveryV1Api, ResourceV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../kube/types.ts';
import type { SourceName } from '../../topology/model.ts';

export interface ObjectList {
  readonly items: KubeObject[];
  readonly metadata?: { readonly resourceVersion?: string };
}

/** The topology's sources, and the SchedulingPolicy objects the policy store watches on its own. */
export type WatchedSource = SourceName | 'schedulingPolicies';

export interface WatchSpec {
  readonly source: WatchedSource;
  /** How logs name the watch (default: topology source <source>). */
  readonly title?: string;
  readonly apiVersion: string;
  readonly kind: string;
  /** The collection's path, for the watch. */
  readonly path: string;
  readonly labelSelector?: string;
  /** Set for a CustomResourceDefinition's resource: when it is not served, the source is disabled. */
  readonly crd?: string;
  list(config: KubeConfig): Promise<ObjectList>;
}

const CONTROL_PLANE_SELECTOR = 'tier=control-plane';

export const WATCHES: readonly (WatchSpec & { readonly source: SourceName })[] = [
  builtin('nodes', 'v1', 'Node', '/api/v1/nodes', (c) => c.makeApiClient(CoreV1Api).listNode()),
  builtin('namespaces', 'v1', 'Namespace', '/api/v1/namespaces', (c) => c.makeApiClient(CoreV1Api).listNamespace()),
  builtin('endpointSlices', 'discovery.k8s.io/v1', 'EndpointSlice', '/apis/discovery.k8s.io/v1/endpointslices', (c) =>
    c.makeApiClient(DiscoveryV1Api).listEndpointSliceForAllNamespaces(),
  ),
  {
    ...builtin('controlPlanePods', 'v1', 'Pod', '/api/v1/namespaces/kube-system/pods', (c) =>
      c.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: 'kube-system', labelSelector: CONTROL_PLANE_SELECTOR }),
    ),
    labelSelector: CONTROL_PLANE_SELECTOR,
  },
  builtin('pods', 'v1', 'Pod', '/api/v1/pods', (c) => c.makeApiClient(CoreV1Api).listPodForAllNamespaces()),
  {
    ...builtin(
      'resourceSlices',
      'resource.k8s.io/v1',
      'ResourceSlice',
      '/apis/resource.k8s.io/v1/resourceslices',
      (c) => c.makeApiClient(ResourceV1Api).listResourceSlice(),
    ),
    // Served by default since Kubernetes 1.34; an older API server leaves the source disabled.
    crd: 'resourceslices.resource.k8s.io',
  },
  custom(
    'nodeResourceTopologies',
    'topology.node.k8s.io',
    'v1alpha2',
    'NodeResourceTopology',
    'noderesourcetopologies',
  ),
  custom('networkTopologies', 'topogate.dev', 'v1alpha1', 'NetworkTopology', 'networktopologies'),
  custom('etcd', 'topogate.dev', 'v1alpha1', 'EtcdCluster', 'etcdclusters'),
];

/** The SchedulingPolicy objects, for the policy store (src/sources/policies/objects.ts), not the model. */
export const POLICY_WATCH: WatchSpec = {
  ...custom('schedulingPolicies', 'topogate.dev', 'v1alpha1', 'SchedulingPolicy', 'schedulingpolicies'),
  title: 'SchedulingPolicy objects',
};

function builtin<Source extends WatchedSource>(
  source: Source,
  apiVersion: string,
  kind: string,
  path: string,
  list: (config: KubeConfig) => Promise<{ items: object[]; metadata?: { resourceVersion?: string } }>,
): WatchSpec & { readonly source: Source } {
  return {
    source,
    apiVersion,
    kind,
    path,
    list: async (config) => plainList(await list(config), apiVersion, kind),
  };
}

function custom<Source extends WatchedSource>(
  source: Source,
  group: string,
  version: string,
  kind: string,
  plural: string,
): WatchSpec & { readonly source: Source } {
  const apiVersion = `${group}/${version}`;
  return {
    source,
    apiVersion,
    kind,
    path: `/apis/${apiVersion}/${plural}`,
    crd: `${plural}.${group}`,
    list: async (config) =>
      plainList(
        await config.makeApiClient(CustomObjectsApi).listClusterCustomObject({ group, version, plural }),
        apiVersion,
        kind,
      ),
  };
}

function plainList(
  list: { items?: unknown; metadata?: { resourceVersion?: string } },
  apiVersion: string,
  kind: string,
): ObjectList {
  const items = Array.isArray(list.items) ? (list.items as object[]) : [];
  const metadata = list.metadata?.resourceVersion ? { resourceVersion: list.metadata.resourceVersion } : {};
  return {
    items: items.map((item) => ({ apiVersion, kind, ...(JSON.parse(JSON.stringify(item)) as KubeObject) })),
    metadata,
  };
}
