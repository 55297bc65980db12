// What the watches keep of each object: all a decision, etcd placement or
// `topogate snapshot` reads, without the bulk that nothing reads. A Node's
// image list alone is often most of its bytes, and a cache of 5,000 Nodes
// would otherwise hold hundreds of megabytes of it.

import type { KubeObject } from '../kube/types.ts';
import { isRecord } from '../kube/json.ts';
import { podRecord } from '../topology/read/pod-record.ts';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** `source` names a watch (watches.ts); any other source keeps its objects but for metadata bulk. */
export function slim(source: string, object: KubeObject): KubeObject {
  // Every Pod of the cluster is kept: only its usage, read here once (pod-record.ts).
  if (source === 'pods') return podRecord(object);
  const out: KubeObject = { ...object };
  if (isRecord(object.metadata)) {
    const { managedFields: _, annotations, ...metadata } = object.metadata;
    const { [LAST_APPLIED]: __, ...kept } = isRecord(annotations) ? (annotations as Record<string, string>) : {};
    out.metadata = Object.keys(kept).length > 0 ? { ...metadata, annotations: kept } : metadata;
  }
  if (source === 'nodes') return slimNode(out);
  if (source === 'controlPlanePods') delete out.status;
  return out;
}

/**
 * Of a Node, what the model reads (labels, spec, allocatable, addresses, each condition's type and status): its
 * images, volumes, capacity, nodeInfo and annotations were two thirds of what 65,000 cached Nodes held, and a
 * kubelet's heartbeat, which changes only a condition's times, now leaves the kept Node as it was.
 */
function slimNode(node: KubeObject): KubeObject {
  const { annotations: _, ...metadata } = isRecord(node.metadata) ? node.metadata : {};
  const status = isRecord(node.status) ? node.status : {};
  const conditions = Array.isArray(status.conditions)
    ? status.conditions.map((c: unknown) => (isRecord(c) ? { type: c.type, status: c.status } : c))
    : undefined;
  return {
    ...node,
    metadata,
    status: {
      ...(status.allocatable !== undefined && { allocatable: status.allocatable }),
      ...(conditions !== undefined && { conditions }),
      ...(status.addresses !== undefined && { addresses: status.addresses }),
    },
  };
}
