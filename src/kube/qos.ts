// The Pod's QoS class as Kubernetes computes it (pkg/apis/core/helper/qos
// GetPodQOS): only cpu and memory count; Guaranteed needs both limits on every
// container and requests equal to limits; pod-level resources, when given,
// decide alone.

import type { PodResourceFacts, Quantities, ResourceFacts } from './podFacts.ts';
import { parseQuantity } from './quantity.ts';
import type { QuantityParser } from './requests.ts';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = ['cpu', 'memory'] as const;

export function qosClass(pod: PodResourceFacts, parse: QuantityParser = parseQuantity): QosClass {
  const podLevel = pod.pod;
  if (podLevel && (hasQosQuantity(podLevel.requests, parse) || hasQosQuantity(podLevel.limits, parse))) {
    return classify([podLevel], parse);
  }
  return classify(
    [...pod.containers, ...pod.initContainers].map((container) => container.resources),
    parse,
  );
}

function classify(resources: readonly ResourceFacts[], parse: QuantityParser): QosClass {
  const requests: Record<string, number> = {};
  const limits: Record<string, number> = {};
  let guaranteed = true;
  for (const { requests: declaredRequests, limits: declaredLimits } of resources) {
    // Requests default to limits (API defaulting), so a Pod read before defaulting classifies the same.
    const limited = positiveQosQuantities(declaredLimits, parse);
    const effective = { ...limited, ...positiveQosQuantities(declaredRequests, parse) };
    for (const [name, amount] of Object.entries(effective)) requests[name] = (requests[name] ?? 0) + amount;
    for (const [name, amount] of Object.entries(limited)) limits[name] = (limits[name] ?? 0) + amount;
    if (!QOS_RESOURCES.every((name) => name in limited)) guaranteed = false;
  }
  if (Object.keys(requests).length === 0 && Object.keys(limits).length === 0) return 'BestEffort';
  if (guaranteed) {
    const equal = Object.entries(requests).every(([name, amount]) => limits[name] === amount);
    if (equal && Object.keys(requests).length === Object.keys(limits).length) return 'Guaranteed';
  }
  return 'Burstable';
}

function positiveQosQuantities(list: Quantities, parse: QuantityParser): Record<string, number> {
  const result: Record<string, number> = {};
  for (const name of QOS_RESOURCES) {
    const milli = parse(list[name]);
    if (milli !== undefined && milli > 0) result[name] = milli;
  }
  return result;
}

function hasQosQuantity(list: Quantities, parse: QuantityParser): boolean {
  return Object.keys(positiveQosQuantities(list, parse)).length > 0;
}
