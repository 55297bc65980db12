// What the watches keep of each object: all a decision, etcd placement or
// `topogate snapshot` reads, without the bulk that nothing reads. A Node's
// image list alone is often most of its bytes, and a cache of 5,000 Nodes
// would otherwise hold hundreds of megabytes of it.

import type { KubeObject } from '../kube/types.ts';
import { isRecord } from '../kube/json.ts';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const NODE_STATUS_DROPPED = ['images', 'volumesInUse', 'volumesAttached'];

/** `source` names a watch (watches.ts); any other source keeps its objects but for metadata bulk. */
export function slim(source: string, object: KubeObject): KubeObject {
  const out: KubeObject = { ...object };
  if (isRecord(object.metadata)) {
    const { managedFields: _, annotations, ...metadata } = object.metadata;
    const { [LAST_APPLIED]: __, ...kept } = isRecord(annotations) ? (annotations as Record<string, string>) : {};
    out.metadata = Object.keys(kept).length > 0 ? { ...metadata, annotations: kept } : metadata;
  }
  if (source === 'nodes' && isRecord(object.status)) {
    const status = { ...object.status };
    for (const field of NODE_STATUS_DROPPED) delete status[field];
    out.status = status;
  }
  if (source === 'controlPlanePods') delete out.status;
  if (source === 'pods') return slimPod(out);
  return out;
}

/**
 * What usage reads of a Pod (node, requests, phase, workload, and while it is not bound the node labels it is
 * held to): every Pod of the cluster is kept, so keep little.
 */
function slimPod(pod: KubeObject): KubeObject {
  const metadata = isRecord(pod.metadata) ? pod.metadata : {};
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const status = isRecord(pod.status) ? pod.status : {};
  const resources = (containers: unknown) =>
    Array.isArray(containers)
      ? containers.map((c) => (isRecord(c) ? { resources: c.resources, restartPolicy: c.restartPolicy } : {}))
      : undefined;
  const hash = isRecord(metadata.labels) ? metadata.labels['pod-template-hash'] : undefined;
  return {
    apiVersion: pod.apiVersion,
    kind: pod.kind,
    metadata: {
      name: metadata.name,
      namespace: metadata.namespace,
      resourceVersion: metadata.resourceVersion,
      ...(hash !== undefined ? { labels: { 'pod-template-hash': hash } } : {}),
      ...(metadata.ownerReferences !== undefined ? { ownerReferences: metadata.ownerReferences } : {}),
    },
    spec: {
      nodeName: spec.nodeName,
      ...(spec.nodeName ? {} : unboundPlacement(spec)),
      containers: resources(spec.containers),
      initContainers: resources(spec.initContainers),
      overhead: spec.overhead,
      resources: spec.resources,
    },
    status: { phase: status.phase },
  };
}

/** Where a Pod not bound yet may go: its nodeSelector and required node affinity. */
function unboundPlacement(spec: Record<string, unknown>): Record<string, unknown> {
  const nodeAffinity =
    isRecord(spec.affinity) && isRecord(spec.affinity.nodeAffinity) ? spec.affinity.nodeAffinity : {};
  const required = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  return {
    ...(spec.nodeSelector !== undefined ? { nodeSelector: spec.nodeSelector } : {}),
    ...(required !== undefined
      ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } } }
      : {}),
  };
}
