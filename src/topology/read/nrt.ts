// topology.node.k8s.io NodeResourceTopology (v1alpha1 and v1alpha2 shapes):
// the NUMA cells of a node and what each has left.

import type { NodeResourceTopology, NumaZone } from '../model.ts';
import { isRecord } from '../../kube/json.ts';
import { list, resourceList, string } from './fields.ts';

// The deprecated topologyPolicies values, as kubelet's Topology Manager
// policy and scope (the names in its configuration).
const POLICIES: Readonly<Record<string, readonly [policy: string, scope: string]>> = {
  None: ['none', 'container'],
  SingleNUMANode: ['single-numa-node', 'container'],
  SingleNUMANodeContainerLevel: ['single-numa-node', 'container'],
  SingleNUMANodePodLevel: ['single-numa-node', 'pod'],
  BestEffort: ['best-effort', 'container'],
  BestEffortContainerLevel: ['best-effort', 'container'],
  BestEffortPodLevel: ['best-effort', 'pod'],
  Restricted: ['restricted', 'container'],
  RestrictedContainerLevel: ['restricted', 'container'],
  RestrictedPodLevel: ['restricted', 'pod'],
};

export function readNodeResourceTopology(name: string, object: Record<string, unknown>): NodeResourceTopology {
  return { nodeName: name, attributes: readAttributes(object), zones: list(object.zones).flatMap(readZone) };
}

function readAttributes(object: Record<string, unknown>): Record<string, string> {
  const attributes: Record<string, string> = {};
  const policies = list(object.topologyPolicies).filter((p) => typeof p === 'string');
  if (policies.length > 0) attributes.topologyPolicies = policies.join(',');
  const known = POLICIES[policies[0] ?? ''];
  if (known) [attributes.topologyManagerPolicy, attributes.topologyManagerScope] = known;
  for (const attribute of list(object.attributes)) {
    if (isRecord(attribute) && typeof attribute.name === 'string' && typeof attribute.value === 'string') {
      attributes[attribute.name] = attribute.value;
    }
  }
  return attributes;
}

function readZone(value: unknown): NumaZone[] {
  if (!isRecord(value) || value.type !== 'Node') return [];
  const capacity: Record<string, number> = {};
  const allocatable: Record<string, number> = {};
  const available: Record<string, number> = {};
  for (const resource of list(value.resources)) {
    if (!isRecord(resource) || typeof resource.name !== 'string') continue;
    const amounts = resourceList({
      capacity: resource.capacity,
      allocatable: resource.allocatable,
      available: resource.available,
    });
    if (amounts.capacity !== undefined) capacity[resource.name] = amounts.capacity;
    if (amounts.allocatable !== undefined) allocatable[resource.name] = amounts.allocatable;
    if (amounts.available !== undefined) available[resource.name] = amounts.available;
  }
  return [{ name: string(value.name) ?? '', capacity, allocatable, available }];
}
