// Which model source a Kubernetes object feeds, and its key within it.

import { ETCD_CLUSTER } from '../api/v1alpha1/etcdcluster.ts';
import { NETWORK_TOPOLOGY } from '../api/v1alpha1/networktopology.ts';
import type { Resource } from '../api/v1alpha1/resource.ts';
import type { KubeObject } from '../kube/types.ts';
import type { SourceName } from './model.ts';

/** The sources the topology model is built from (SchedulingPolicy objects feed the policy store, not the model). */
export const TOPOLOGY_SOURCES: readonly SourceName[] = [
  'nodes',
  'namespaces',
  'nodeResourceTopologies',
  'endpointSlices',
  'controlPlanePods',
  'networkTopologies',
  'etcd',
  'pods',
  'resourceSlices',
];

/** The sources an object feeds: a Pod is both a bound Pod (usage) and maybe a control-plane Pod. */
export function sourcesOf(object: KubeObject): readonly SourceName[] {
  const source = sourceOf(object);
  if (source === undefined) return [];
  return source === 'controlPlanePods' ? ['controlPlanePods', 'pods'] : [source];
}

const groupKind = ({ group, kind }: Resource) => `${group}/${kind}`;
const networkTopologyKind = groupKind(NETWORK_TOPOLOGY);
const etcdClusterKind = groupKind(ETCD_CLUSTER);

function sourceOf(object: KubeObject): SourceName | undefined {
  const group = groupOf(object.apiVersion);
  switch (`${group}/${object.kind}`) {
    case '/Node':
      return 'nodes';
    case '/Namespace':
      return 'namespaces';
    case '/Pod':
      return 'controlPlanePods';
    case 'topology.node.k8s.io/NodeResourceTopology':
      return 'nodeResourceTopologies';
    case 'discovery.k8s.io/EndpointSlice':
      return 'endpointSlices';
    case networkTopologyKind:
      return 'networkTopologies';
    case 'resource.k8s.io/ResourceSlice':
      return 'resourceSlices';
    case etcdClusterKind:
      return 'etcd';
    default:
      return undefined;
  }
}

const NAMESPACED: ReadonlySet<SourceName> = new Set(['endpointSlices', 'controlPlanePods', 'pods']);

/** "namespace/name" in namespaced sources, else the name; undefined without a name. */
export function objectKey(source: SourceName, object: KubeObject): string | undefined {
  const name = object.metadata?.name;
  if (typeof name !== 'string' || name === '') return undefined;
  if (!NAMESPACED.has(source)) return name;
  const namespace = object.metadata?.namespace;
  return `${typeof namespace === 'string' && namespace !== '' ? namespace : 'default'}/${name}`;
}

function groupOf(apiVersion: unknown): string | undefined {
  if (typeof apiVersion !== 'string') return undefined;
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}
