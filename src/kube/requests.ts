// A Pod's effective resource requests as the scheduler computes them
// (k8s.io/component-helpers resource.PodRequests): regular containers and
// sidecars (init containers with restartPolicy Always) run together; each
// plain init container runs alone beside the sidecars started before it; the
// Pod needs the larger of the two, plus its overhead. Pod-level requests
// (spec.resources) replace the container sum for the resources they name.

import type { PodResourceFacts, Quantities, ResourceFacts } from './podFacts.ts';
import { parseQuantity, type ResourceList } from './quantity.ts';

/** Reads one quantity as milli-units; a caller may pass a memoising one. */
export type QuantityParser = (value: unknown) => number | undefined;

type MutableResources = Record<string, number>;

/** Requests with missing ones taken from limits, as API defaulting does, in milli-units. */
export function containerRequests(resources: ResourceFacts, parse: QuantityParser = parseQuantity): ResourceList {
  const requests: MutableResources = {};
  addQuantities(requests, resources.limits, parse);
  const explicit: MutableResources = {};
  addQuantities(explicit, resources.requests, parse);
  return { ...requests, ...explicit };
}

export function effectiveRequests(pod: PodResourceFacts, parse: QuantityParser = parseQuantity): ResourceList {
  const total: MutableResources = {};
  for (const container of pod.containers) addList(total, containerRequests(container.resources, parse));

  const sidecars: MutableResources = {};
  const initPeak: MutableResources = {};
  for (const container of pod.initContainers) {
    const requests = containerRequests(container.resources, parse);
    if (container.sidecar) {
      addList(total, requests);
      addList(sidecars, requests);
      maxList(initPeak, sidecars);
    } else {
      const running = { ...sidecars };
      addList(running, requests);
      maxList(initPeak, running);
    }
  }
  maxList(total, initPeak);

  const podLevel: MutableResources = {};
  if (pod.pod) addQuantities(podLevel, { ...pod.pod.limits, ...pod.pod.requests }, parse);
  for (const name of ['cpu', 'memory']) if (podLevel[name] !== undefined) total[name] = podLevel[name];

  addQuantities(total, pod.overhead, parse);
  return total;
}

/** The effective request of one resource (0 when not requested). */
export function requestOf(requests: ResourceList, resource: string): number {
  return requests[resource] ?? 0;
}

function addQuantities(into: MutableResources, quantities: Quantities, parse: QuantityParser): void {
  for (const [name, quantity] of Object.entries(quantities)) {
    const milli = parse(quantity);
    if (milli !== undefined) into[name] = (into[name] ?? 0) + milli;
  }
}

function addList(into: MutableResources, list: ResourceList): void {
  for (const [name, amount] of Object.entries(list)) into[name] = (into[name] ?? 0) + amount;
}

function maxList(into: MutableResources, list: ResourceList): void {
  for (const [name, amount] of Object.entries(list)) into[name] = Math.max(into[name] ?? 0, amount);
}
