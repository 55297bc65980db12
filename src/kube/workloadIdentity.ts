// Which workload a Pod belongs to, so that every replica of one workload is
// treated alike (policy-v2.md, rollout): its namespace plus its controller
// owner. A Deployment's ReplicaSets change name with every template change, so
// their Pods are named by the Deployment (the ReplicaSet's name without its
// pod-template-hash suffix); a Pod without a controller is its own workload.

import { isRecord } from './json.ts';
import type { KubeObject, Pod } from './types.ts';

export interface WorkloadIdentity {
  readonly namespace: string;
  readonly kind: string;
  readonly name: string;
}

const TEMPLATE_HASH_LABEL = 'pod-template-hash';

export function podWorkload(pod: Pod, namespace: string): WorkloadIdentity {
  const owner = controllerOf(pod);
  if (owner === undefined) {
    const name = pod.metadata?.name || pod.metadata?.generateName || '';
    return { namespace, kind: 'Pod', name };
  }
  const deployment = deploymentOf(owner.kind, owner.name, pod.metadata?.labels?.[TEMPLATE_HASH_LABEL]);
  return { namespace, ...(deployment ?? owner) };
}

/**
 * The identity the Pods of a workload object will have: its own kind and name (a ReplicaSet made by a
 * Deployment is the Deployment's). A CronJob's Pods belong to Jobs named per run, so each run is a workload
 * of its own; the CronJob is named for lack of the Job's name.
 */
export function workloadOfObject(workload: KubeObject, namespace: string): WorkloadIdentity {
  const kind = String(workload.kind);
  const name = workload.metadata?.name || workload.metadata?.generateName || '';
  const template = (workload as { spec?: { template?: { metadata?: { labels?: Record<string, string> } } } }).spec
    ?.template;
  return {
    namespace,
    ...(deploymentOf(kind, name, template?.metadata?.labels?.[TEMPLATE_HASH_LABEL]) ?? { kind, name }),
  };
}

/** The owner reference with controller: true (Kubernetes allows at most one). */
export function controllerOf(object: KubeObject): { kind: string; name: string } | undefined {
  const owners = object.metadata?.ownerReferences;
  if (!Array.isArray(owners)) return undefined;
  for (const owner of owners)
    if (
      isRecord(owner) &&
      owner.controller === true &&
      typeof owner.kind === 'string' &&
      typeof owner.name === 'string'
    )
      return { kind: owner.kind, name: owner.name };
  return undefined;
}

function deploymentOf(kind: string, name: string, templateHash: unknown): { kind: string; name: string } | undefined {
  if (kind !== 'ReplicaSet' || typeof templateHash !== 'string' || templateHash === '') return undefined;
  const suffix = `-${templateHash}`;
  return name.endsWith(suffix) && name.length > suffix.length
    ? { kind: 'Deployment', name: name.slice(0, -suffix.length) }
    : undefined;
}

/** namespace/Kind/name: what the rollout hash reads, and how explain names the workload. */
export function describeWorkload(identity: WorkloadIdentity): string {
  return `${identity.namespace}/${identity.kind}/${identity.name}`;
}
