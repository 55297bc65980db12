// The Pod's QoS class as Kubernetes computes it (pkg/apis/core/helper/qos
// GetPodQOS): only cpu and memory count; Guaranteed needs both limits on every
// container and requests equal to limits; pod-level resources, when given,
// decide alone.

import type { PodResourceFacts, Quantities, ResourceFacts } from './podFacts.ts';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

export function qosClass(pod: PodResourceFacts): QosClass {
  const podLevel = pod.pod;
  const sums = newSums();
  if (podLevel && (hasQosQuantity(podLevel.requests) || hasQosQuantity(podLevel.limits))) {
    add(sums, podLevel);
  } else {
    for (const container of pod.containers) add(sums, container.resources);
    for (const container of pod.initContainers) add(sums, container.resources);
  }
  return verdict(sums);
}

/** What the class reads, summed over the containers (or the pod-level resources): plain numbers, no lists. */
interface Sums {
  requestedCpu: number;
  requestedMemory: number;
  limitedCpu: number;
  limitedMemory: number;
  /** Whether any cpu or memory request or limit is given (positive). */
  any: boolean;
  /** Whether every one gives both a cpu and a memory limit. */
  allLimited: boolean;
}

const newSums = (): Sums => ({
  requestedCpu: 0,
  requestedMemory: 0,
  limitedCpu: 0,
  limitedMemory: 0,
  any: false,
  allLimited: true,
});

// Requests default to limits (API defaulting), so a Pod read before defaulting classifies the same.
function add(sums: Sums, { requests, limits }: ResourceFacts): void {
  const cpuLimit = positive(limits.cpu);
  const memoryLimit = positive(limits.memory);
  const cpuRequest = positive(requests.cpu) ?? cpuLimit;
  const memoryRequest = positive(requests.memory) ?? memoryLimit;
  if (cpuRequest !== undefined) sums.requestedCpu += cpuRequest;
  if (memoryRequest !== undefined) sums.requestedMemory += memoryRequest;
  if (cpuLimit !== undefined) sums.limitedCpu += cpuLimit;
  if (memoryLimit !== undefined) sums.limitedMemory += memoryLimit;
  if (cpuRequest !== undefined || memoryRequest !== undefined) sums.any = true;
  if (cpuLimit === undefined || memoryLimit === undefined) sums.allLimited = false;
}

// Every one limited: both sums hold cpu and memory, and the class is Guaranteed when each pair is equal.
function verdict(sums: Sums): QosClass {
  if (!sums.any) return 'BestEffort';
  const equal = sums.requestedCpu === sums.limitedCpu && sums.requestedMemory === sums.limitedMemory;
  return sums.allLimited && equal ? 'Guaranteed' : 'Burstable';
}

function positive(milli: number | undefined): number | undefined {
  return milli !== undefined && milli > 0 ? milli : undefined;
}

function hasQosQuantity(list: Quantities): boolean {
  return positive(list.cpu) !== undefined || positive(list.memory) !== undefined;
}
