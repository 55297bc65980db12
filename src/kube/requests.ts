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
  addContainer(requests, resources, parse);
  return requests;
}

// Every Pod a policy with a `resources` matcher meets passes here, so the containers are added in place, with
// no list per container: the same sums, in the same key order, as adding each containerRequests().
export function effectiveRequests(pod: PodResourceFacts, parse: QuantityParser = parseQuantity): ResourceList {
  const total: MutableResources = {};
  for (const container of pod.containers) addContainer(total, container.resources, parse);
  if (pod.initContainers.length > 0) addInitContainers(total, pod.initContainers, parse);

  if (pod.pod) {
    const podLevel: MutableResources = {};
    addQuantities(podLevel, { ...pod.pod.limits, ...pod.pod.requests }, parse);
    for (const name of ['cpu', 'memory']) if (podLevel[name] !== undefined) total[name] = podLevel[name];
  }

  addQuantities(total, pod.overhead, parse);
  return total;
}

/** The effective request of one resource (0 when not requested). */
export function requestOf(requests: ResourceList, resource: string): number {
  return requests[resource] ?? 0;
}

/**
 * Adds a container's requests: each limit (in the limits' key order) where no request is given or it does not
 * parse, then the requests that have no such limit (in theirs), as `{ ...limits, ...requests }` would order them.
 */
function addContainer(into: MutableResources, { requests, limits }: ResourceFacts, parse: QuantityParser): void {
  for (const name in limits) {
    const limit = parse(limits[name]);
    if (limit === undefined) continue;
    const request = Object.hasOwn(requests, name) ? parse(requests[name]) : undefined;
    into[name] = (into[name] ?? 0) + (request ?? limit);
  }
  for (const name in requests) {
    if (Object.hasOwn(limits, name) && parse(limits[name]) !== undefined) continue;
    const request = parse(requests[name]);
    if (request !== undefined) into[name] = (into[name] ?? 0) + request;
  }
}

/** Sidecars run beside everything after them; each plain init container runs alone beside those before it. */
function addInitContainers(
  total: MutableResources,
  initContainers: PodResourceFacts['initContainers'],
  parse: QuantityParser,
): void {
  const sidecars: MutableResources = {};
  const initPeak: MutableResources = {};
  let sidecarsStarted = false;
  for (const container of initContainers) {
    const requests = containerRequests(container.resources, parse);
    if (container.sidecar) {
      sidecarsStarted = true;
      addList(total, requests);
      addList(sidecars, requests);
      maxList(initPeak, sidecars);
    } else if (sidecarsStarted) {
      const running = { ...sidecars };
      addList(running, requests);
      maxList(initPeak, running);
    } else maxList(initPeak, requests);
  }
  maxList(total, initPeak);
}

function addQuantities(into: MutableResources, quantities: Quantities, parse: QuantityParser): void {
  for (const name in quantities) {
    const milli = parse(quantities[name]);
    if (milli !== undefined) into[name] = (into[name] ?? 0) + milli;
  }
}

function addList(into: MutableResources, list: ResourceList): void {
  for (const name in list) into[name] = (into[name] ?? 0) + list[name]!;
}

function maxList(into: MutableResources, list: ResourceList): void {
  for (const name in list) into[name] = Math.max(into[name] ?? 0, list[name]!);
}
