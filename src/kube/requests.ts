// A Pod's effective resource requests as the scheduler computes them
// (k8s.io/component-helpers resource.PodRequests): regular containers and
// sidecars (init containers with restartPolicy Always) run together; each
// plain init container runs alone beside the sidecars started before it; the
// Pod needs the larger of the two, plus its overhead. Pod-level requests
// (spec.resources) replace the container sum for the resources they name.

import type { PodResourceFacts, Quantities, ResourceFacts } from './podFacts.ts';
import type { ResourceList } from './quantity.ts';

type MutableResources = Record<string, number>;

/** Requests with missing ones taken from limits, as API defaulting does, in milli-units. */
function containerRequests(resources: ResourceFacts): ResourceList {
  const requests: MutableResources = {};
  addContainer(requests, resources);
  return requests;
}

// Every Pod a policy with a `resources` matcher meets passes here, so the containers are added in place, with
// no list per container: the same sums, in the same key order, as adding each containerRequests().
export function effectiveRequests(pod: PodResourceFacts): ResourceList {
  const total: MutableResources = {};
  for (const container of pod.containers) addContainer(total, container.resources);
  if (pod.initContainers.length > 0) addInitContainers(total, pod.initContainers);

  if (pod.pod) {
    const podLevel: Quantities = { ...pod.pod.limits, ...pod.pod.requests };
    for (const name of ['cpu', 'memory']) if (podLevel[name] !== undefined) total[name] = podLevel[name];
  }

  addList(total, pod.overhead);
  return total;
}

/** The effective request of one resource (0 when not requested). */
export function requestOf(requests: ResourceList, resource: string): number {
  return requests[resource] ?? 0;
}

/**
 * Adds a container's requests: each limit (in the limits' key order) where no request is given, then the requests
 * that have no limit (in theirs), as `{ ...limits, ...requests }` would order them.
 */
function addContainer(into: MutableResources, { requests, limits }: ResourceFacts): void {
  for (const name in limits) into[name] = (into[name] ?? 0) + (requests[name] ?? limits[name]!);
  for (const name in requests) if (limits[name] === undefined) into[name] = (into[name] ?? 0) + requests[name]!;
}

/** Sidecars run beside everything after them; each plain init container runs alone beside those before it. */
function addInitContainers(total: MutableResources, initContainers: PodResourceFacts['initContainers']): void {
  const sidecars: MutableResources = {};
  const initPeak: MutableResources = {};
  let sidecarsStarted = false;
  for (const container of initContainers) {
    const requests = containerRequests(container.resources);
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

function addList(into: MutableResources, list: ResourceList): void {
  for (const name in list) into[name] = (into[name] ?? 0) + list[name]!;
}

function maxList(into: MutableResources, list: ResourceList): void {
  for (const name in list) into[name] = Math.max(into[name] ?? 0, list[name]!);
}
