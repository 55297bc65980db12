// Which workload a Pod belongs to, so that every replica of one workload is
// treated alike (rollout percent, pack domains): the namespace plus its
// controller owner. A ReplicaSet made by a Deployment is named
// <deployment>-<pod-template-hash> and changes with every rollout, so its Pods
// are known by the Deployment instead, as the Deployment's own template is.

import { isRecord, recordsOf } from './json.ts';
import type { KubeObject, Pod } from './types.ts';

export interface WorkloadIdentity {
  readonly namespace: string;
  /** The controller's kind (Deployment for a ReplicaSet a Deployment made), or Pod without a controller. */
  readonly kind: string;
  /** The controller's name, or the Pod's own name (else generateName) without a controller. */
  readonly name: string;
}

const POD_TEMPLATE_HASH = 'pod-template-hash';

/** The workload of a Pod (or of a pod template seen as a Pod) in `namespace`. */
export function podWorkload(pod: Pod, namespace: string): WorkloadIdentity {
  const metadata = isRecord(pod.metadata) ? pod.metadata : {};
  const owner = recordsOf(metadata.ownerReferences).find((reference) => reference.controller === true);
  if (owner && typeof owner.kind === 'string' && typeof owner.name === 'string' && owner.name !== '') {
    const hash = isRecord(metadata.labels) ? metadata.labels[POD_TEMPLATE_HASH] : undefined;
    const suffix = typeof hash === 'string' && hash !== '' ? `-${hash}` : undefined;
    if (owner.kind === 'ReplicaSet' && suffix && owner.name.endsWith(suffix) && owner.name.length > suffix.length)
      return { namespace, kind: 'Deployment', name: owner.name.slice(0, -suffix.length) };
    return { namespace, kind: owner.kind, name: owner.name };
  }
  const own = typeof metadata.name === 'string' && metadata.name !== '' ? metadata.name : metadata.generateName;
  return { namespace, kind: 'Pod', name: typeof own === 'string' ? own : '' };
}

/** The workload a workload object is (a Deployment is itself), so that its template and its Pods agree. */
export function objectWorkload(object: KubeObject, namespace: string): WorkloadIdentity {
  const name = object.metadata?.name;
  return { namespace, kind: String(object.kind ?? ''), name: typeof name === 'string' ? name : '' };
}

/** One string per workload: namespace/kind/name. */
export function workloadKey(identity: WorkloadIdentity): string {
  return `${identity.namespace}/${identity.kind}/${identity.name}`;
}
