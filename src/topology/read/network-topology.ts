// topogate.dev/v1alpha1 NetworkTopology → measured links between domains.

import { isRecord, list, record, string, timestamp } from './fields.ts';

export interface Link {
  readonly from: string;
  readonly to: string;
  readonly rttMs: number;
  readonly symmetric: boolean;
}

export interface NetworkFacts {
  readonly name: string;
  readonly domainLabel: string;
  readonly links: readonly Link[];
  readonly observedAt?: number;
}

export const DEFAULT_DOMAIN_LABEL = 'topology.kubernetes.io/zone';

export function readNetworkTopology(name: string, object: Record<string, unknown>): NetworkFacts {
  const spec = record(object.spec);
  const observedAt = timestamp(record(object.status).observedAt);
  const facts = {
    name,
    domainLabel: string(spec.domainLabel) || DEFAULT_DOMAIN_LABEL,
    links: list(spec.links).flatMap(readLink),
  };
  return observedAt === undefined ? facts : { ...facts, observedAt };
}

function readLink(value: unknown): Link[] {
  if (!isRecord(value)) return [];
  const { from, to, rttMs } = value;
  if (typeof from !== 'string' || typeof to !== 'string' || typeof rttMs !== 'number') return [];
  if (!Number.isFinite(rttMs) || rttMs < 0) return [];
  return [{ from, to, rttMs, symmetric: value.symmetric !== false }];
}
