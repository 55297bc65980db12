// rollout.percent: a workload is in or out by a stable hash of its identity.
// The bucket is FNV-1a (32 bit) over the UTF-8 bytes of "namespace/Kind/name",
// modulo 100; a workload is in when its bucket is below the percent. The
// bucket does not depend on the policy or the percent, so raising the percent
// only adds workloads, and every policy at 25 % picks the same quarter.

import { fnv1a } from '../kube/fnv1a.ts';
import { workloadKey, type WorkloadIdentity } from '../kube/workload-identity.ts';

export function rolloutBucket(identity: WorkloadIdentity): number {
  return fnv1a(workloadKey(identity)) % 100;
}

export function inRollout(percent: number, identity: WorkloadIdentity): boolean {
  return percent >= 100 || rolloutBucket(identity) < percent;
}
