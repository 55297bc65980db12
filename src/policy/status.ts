// The status topogate writes on SchedulingPolicy objects (pure): a Ready
// condition (False with the loader's exact errors, or a name a policy file
// already uses) and observedGeneration, so that `kubectl get
// schedulingpolicies` shows an invalid policy to whoever applied it.

import type { KubeObject } from '../kube/types.ts';
import { isRecord, recordsOf } from '../kube/json.ts';
import { combinePolicies, objectOrigin, readPolicyObjects } from './combine.ts';
import { formatPolicyError } from './errors.ts';
import type { StatusCondition, StoredPolicyStatus } from '../api/v1alpha1/schedulingpolicy.ts';
import type { SchedulingPolicy } from './types.ts';

/** The one condition topogate writes: the CRD's condition (src/api/v1alpha1/schedulingpolicy.ts), narrowed. */
export interface ReadyCondition extends StatusCondition {
  readonly type: 'Ready';
  readonly status: 'True' | 'False';
  readonly reason: 'Valid' | 'Invalid';
  readonly message: string;
  readonly lastTransitionTime: string;
}

export interface PolicyStatus extends StoredPolicyStatus {
  readonly conditions: readonly ReadyCondition[];
}

/** Each object's name → the status it should have, where it has not it already. */
export function statusUpdates(
  objects: readonly KubeObject[],
  files: readonly SchedulingPolicy[],
  now: number,
): Map<string, PolicyStatus> {
  const { errors } = combinePolicies(files, readPolicyObjects(objects, new Map()));
  const updates = new Map<string, PolicyStatus>();
  for (const object of objects) {
    const name = object.metadata?.name;
    if (typeof name !== 'string') continue;
    const own = errors.filter((error) => error.file === objectOrigin(name));
    const generation = typeof object.metadata?.generation === 'number' ? object.metadata.generation : undefined;
    const wanted = {
      status: own.length === 0 ? ('True' as const) : ('False' as const),
      reason: own.length === 0 ? ('Valid' as const) : ('Invalid' as const),
      message: own.length === 0 ? 'the policy is valid and in force' : own.map(formatPolicyError).join('; '),
    };
    const current = currentReady(object);
    if (
      current !== undefined &&
      current.status === wanted.status &&
      current.reason === wanted.reason &&
      current.message === wanted.message &&
      current.observedGeneration === generation &&
      statusGeneration(object) === generation
    )
      continue;
    const lastTransitionTime =
      current?.status === wanted.status && typeof current.lastTransitionTime === 'string'
        ? current.lastTransitionTime
        : new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const condition: ReadyCondition = {
      type: 'Ready',
      ...wanted,
      ...(generation !== undefined && { observedGeneration: generation }),
      lastTransitionTime,
    };
    updates.set(name, { ...(generation !== undefined && { observedGeneration: generation }), conditions: [condition] });
  }
  return updates;
}

function currentReady(object: KubeObject): Record<string, any> | undefined {
  const status = object.status;
  return isRecord(status) ? recordsOf(status.conditions).find((condition) => condition.type === 'Ready') : undefined;
}

function statusGeneration(object: KubeObject): unknown {
  return isRecord(object.status) ? object.status.observedGeneration : undefined;
}
