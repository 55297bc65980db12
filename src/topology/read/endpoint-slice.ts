// discovery.k8s.io/v1 EndpointSlice → where a Service's ready endpoints are.

import { isRecord } from '../../kube/json.ts';
import { list, record, string } from './fields.ts';

export interface SliceFacts {
  /** "namespace/name" of the Service, from the kubernetes.io/service-name label. */
  readonly service: string | undefined;
  /** Zones given on ready endpoints. */
  readonly zones: readonly string[];
  /** Nodes of ready endpoints that give no zone: their zone is their node's. */
  readonly nodes: readonly string[];
}

export function readEndpointSlice(object: Record<string, unknown>): SliceFacts {
  const metadata = record(object.metadata);
  const serviceName = string(record(metadata.labels)['kubernetes.io/service-name']);
  const zones = new Set<string>();
  const nodes = new Set<string>();
  for (const endpoint of list(object.endpoints)) {
    // An absent ready condition means ready (discovery.k8s.io/v1 EndpointConditions).
    if (!isRecord(endpoint) || record(endpoint.conditions).ready === false) continue;
    const zone = string(endpoint.zone);
    const nodeName = string(endpoint.nodeName);
    if (zone) zones.add(zone);
    else if (nodeName) nodes.add(nodeName);
  }
  return {
    service: serviceName ? `${string(metadata.namespace) ?? 'default'}/${serviceName}` : undefined,
    zones: [...zones],
    nodes: [...nodes],
  };
}
