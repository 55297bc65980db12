// What the live model keeps of each Pod: its name, namespace and resourceVersion
// (what a watch cache and a relist need) and its usage, read once where the Pod
// arrives. The usage sits under a symbol, which no JSON can carry, so an object
// from the API server can never pass for one already read. 500,000 Pods kept as
// slimmed objects (containers, owner references) and again as usage were most
// of the heap at 65,000 nodes; a record holds the one usage the builder shares.

import type { KubeObject } from '../../kube/types.ts';
import { formatQuantity } from '../../kube/quantity.ts';
import { record, string } from './fields.ts';
import { readPodUsage, type PodUsage } from './pod-usage.ts';

const USAGE = Symbol('topogate.podUsage');

export interface PodRecord extends KubeObject {
  readonly metadata: { readonly name?: string; readonly namespace?: string; readonly resourceVersion?: string };
  /** Undefined: the Pod takes nothing (finished, or not bound and free to go anywhere). */
  readonly [USAGE]: PodUsage | undefined;
}

/** The record of a Pod (any JSON value from a list or watch). */
export function podRecord(pod: KubeObject): PodRecord {
  const metadata = record(pod.metadata);
  const name = string(metadata.name);
  const namespace = string(metadata.namespace);
  const resourceVersion = string(metadata.resourceVersion);
  return {
    metadata: {
      ...(name !== undefined && { name }),
      ...(namespace !== undefined && { namespace }),
      ...(resourceVersion !== undefined && { resourceVersion }),
    },
    [USAGE]: readPodUsage(pod),
  };
}

/** The record of a Pod read elsewhere (a list's worker thread: a symbol does not cross threads) from its parts. */
export function podRecordOf(metadata: PodRecord['metadata'], usage: PodUsage | undefined): PodRecord {
  return { metadata, [USAGE]: usage };
}

/** A Pod's usage: the one a record holds, else read from the Pod. */
export function usageOf(pod: KubeObject): PodUsage | undefined {
  return USAGE in pod ? (pod as PodRecord)[USAGE] : readPodUsage(pod);
}

/**
 * A record as a Pod whose usage reads back the same (`topogate snapshot` writes the live model's Pods, which
 * `--topology` files read again): the workload as its controller, the requests as one container's, the labels a
 * Pod not bound yet is held to as its nodeSelector. Any other object is given back as it is.
 */
export function podOf(object: KubeObject): KubeObject {
  if (!(USAGE in object)) return object;
  const { metadata, [USAGE]: usage } = object as PodRecord;
  const base = { apiVersion: 'v1', kind: 'Pod' };
  if (usage === undefined) return { ...base, metadata, spec: { containers: [] }, status: { phase: 'Succeeded' } };
  const [, kind = '', owner = ''] = usage.workload.split('/');
  const requests = Object.fromEntries(
    Object.entries(usage.requests).map(([key, milli]) => [key, formatQuantity(milli)]),
  );
  return {
    ...base,
    metadata: { ...metadata, ...(kind !== 'Pod' && { ownerReferences: [{ kind, name: owner, controller: true }] }) },
    spec: {
      ...(usage.node !== undefined ? { nodeName: usage.node } : { nodeSelector: usage.heldTo }),
      containers: [{ name: 'usage', resources: { requests } }],
    },
    status: { phase: 'Running' },
  };
}
