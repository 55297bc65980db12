// What each watched source lists and watches. Lists come page by page as
// plain JSON (list.ts), taken in a worker thread (off-thread.ts); their items
// come without apiVersion and kind and are given both, the shape watch events
// and files have, and are slimmed as each page is parsed, as the informer
// slims watch events (wire.ts): a whole list of Pods kept as parsed until its
// last page was 3 GB at 500,000 Pods.

import type { KubeConfig } from '@kubernetes/client-node';
import type { SourceName } from '../../topology/model.ts';
import type { ListDelivery, ObjectList, Selectors } from './list.ts';
import { listOffThread } from './off-thread.ts';
import { ETCD_CLUSTER } from '../../api/v1alpha1/etcdcluster.ts';
import { NETWORK_TOPOLOGY } from '../../api/v1alpha1/networktopology.ts';
import { SCHEDULING_POLICY } from '../../api/v1alpha1/schedulingpolicy.ts';

/** A custom resource's kind and where it is served. */
interface CustomResource {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

export type { ObjectList };

/** The topology's sources, and the SchedulingPolicy objects the policy store watches on its own. */
export type WatchedSource = SourceName | 'schedulingPolicies';

export interface WatchSpec extends Selectors {
  readonly source: WatchedSource;
  /** How logs name the watch (default: topology source <source>). */
  readonly title?: string;
  readonly apiVersion: string;
  readonly kind: string;
  /** The collection's path, for the watch. */
  readonly path: string;
  /** Set for a CustomResourceDefinition's resource: when it is not served, the source is disabled. */
  readonly crd?: string;
  /** Every object, slimmed, page by page as `delivery` says (list.ts). */
  list(config: KubeConfig, delivery?: ListDelivery): Promise<ObjectList>;
}

const CONTROL_PLANE_SELECTOR = 'tier=control-plane';
/**
 * Pods that have finished hold no resources (the occupancy counts none of them), so they are not asked for, as
 * the scheduler does not ask for them either: in a batch cluster most Pods in etcd may be finished ones. A Pod
 * that finishes leaves the selection, and its watch sends it as deleted.
 */
export const UNFINISHED_PODS = 'status.phase!=Succeeded,status.phase!=Failed';

export const WATCHES: readonly (WatchSpec & { readonly source: SourceName })[] = [
  builtin('nodes', 'v1', 'Node', '/api/v1/nodes'),
  builtin('namespaces', 'v1', 'Namespace', '/api/v1/namespaces'),
  builtin('endpointSlices', 'discovery.k8s.io/v1', 'EndpointSlice', '/apis/discovery.k8s.io/v1/endpointslices'),
  builtin('controlPlanePods', 'v1', 'Pod', '/api/v1/namespaces/kube-system/pods', {
    labelSelector: CONTROL_PLANE_SELECTOR,
  }),
  builtin('pods', 'v1', 'Pod', '/api/v1/pods', { fieldSelector: UNFINISHED_PODS }),
  {
    ...builtin('resourceSlices', 'resource.k8s.io/v1', 'ResourceSlice', '/apis/resource.k8s.io/v1/resourceslices'),
    // Served by default since Kubernetes 1.34; an older API server leaves the source disabled.
    crd: 'resourceslices.resource.k8s.io',
  },
  custom('nodeResourceTopologies', {
    group: 'topology.node.k8s.io',
    version: 'v1alpha2',
    kind: 'NodeResourceTopology',
    plural: 'noderesourcetopologies',
  }),
  custom('networkTopologies', NETWORK_TOPOLOGY),
  custom('etcd', ETCD_CLUSTER),
];

/** The SchedulingPolicy objects, for the policy store (src/sources/policies/objects.ts), not the model. */
export const POLICY_WATCH: WatchSpec = {
  ...custom('schedulingPolicies', SCHEDULING_POLICY),
  title: 'SchedulingPolicy objects',
};

function builtin<Source extends WatchedSource>(
  source: Source,
  apiVersion: string,
  kind: string,
  path: string,
  selectors: Selectors = {},
): WatchSpec & { readonly source: Source } {
  return {
    source,
    apiVersion,
    kind,
    path,
    ...selectors,
    list: (config, delivery) => listOffThread(config, { source, apiVersion, kind, path, selectors }, delivery),
  };
}

function custom<Source extends WatchedSource>(
  source: Source,
  { group, version, kind, plural }: CustomResource,
): WatchSpec & { readonly source: Source } {
  return {
    ...builtin(source, `${group}/${version}`, kind, `/apis/${group}/${version}/${plural}`),
    crd: `${plural}.${group}`,
  };
}
