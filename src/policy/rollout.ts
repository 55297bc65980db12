// rollout.percent: a workload is in or out by a stable hash of its identity.
// The bucket is FNV-1a (32 bit) over the UTF-8 bytes of "namespace/Kind/name",
// modulo 100; a workload is in when its bucket is below the percent. The
// bucket does not depend on the policy or the percent, so raising the percent
// only adds workloads, and every policy at 25 % picks the same quarter.

import { workloadKey, type WorkloadIdentity } from '../kube/workload-identity.ts';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const encoder = new TextEncoder();

export function rolloutBucket(identity: WorkloadIdentity): number {
  return fnv1a(workloadKey(identity)) % 100;
}

export function fnv1a(text: string): number {
  let hash = FNV_OFFSET;
  for (const byte of encoder.encode(text)) hash = Math.imul(hash ^ byte, FNV_PRIME) >>> 0;
  return hash;
}

export function inRollout(percent: number, identity: WorkloadIdentity): boolean {
  return percent >= 100 || rolloutBucket(identity) < percent;
}
