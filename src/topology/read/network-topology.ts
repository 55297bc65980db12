// topogate.dev/v1alpha1 NetworkTopology → links between domains: declared in
// spec (by a person, the cloud provider or the CNI), measured in status (by
// `topogate probe` or an adapter of another tool's metrics).

import type { DegradedNode, MislabeledNode } from '../model.ts';
import { isRecord } from '../../kube/json.ts';
import { list, record, string, timestamp } from './fields.ts';

/** A link as declared in spec.links. */
export interface Link {
  readonly from: string;
  readonly to: string;
  readonly rttMs: number;
  readonly bandwidthGbps?: number;
  readonly symmetric: boolean;
}

/** A link as measured in status.links: a round trip, so it holds both ways; from == to is a domain's own RTT. */
export interface MeasuredLink {
  readonly from: string;
  readonly to: string;
  /** Median round trip. */
  readonly rttMs: number;
  readonly rttP99Ms?: number;
  readonly samples?: number;
  readonly bandwidthGbps?: number;
}

export interface NetworkFacts {
  readonly name: string;
  readonly domainLabel: string;
  readonly links: readonly Link[];
  readonly measured: readonly MeasuredLink[];
  readonly degradedNodes: readonly DegradedNode[];
  readonly mislabeled?: readonly MislabeledNode[];
  readonly observedAt?: number;
}

/** The CRD's bound on status.mislabeled; an object past it (edited by hand) is read no further. */
const MAX_MISLABELED = 100;

export const DEFAULT_DOMAIN_LABEL = 'topology.kubernetes.io/zone';

export function readNetworkTopology(name: string, object: Record<string, unknown>): NetworkFacts {
  const spec = record(object.spec);
  const status = record(object.status);
  const observedAt = timestamp(status.observedAt);
  const facts = {
    name,
    domainLabel: string(spec.domainLabel) || DEFAULT_DOMAIN_LABEL,
    links: list(spec.links).flatMap(readLink),
    measured: list(status.links).flatMap(readMeasuredLink),
    degradedNodes: list(status.degradedNodes).flatMap(readDegradedNode),
    mislabeled: list(status.mislabeled).slice(0, MAX_MISLABELED).flatMap(readMislabeled),
  };
  return observedAt === undefined ? facts : { ...facts, observedAt };
}

function readLink(value: unknown): Link[] {
  if (!isRecord(value)) return [];
  const { from, to } = value;
  const rttMs = nonNegative(value.rttMs);
  if (typeof from !== 'string' || typeof to !== 'string' || rttMs === undefined) return [];
  const bandwidthGbps = nonNegative(value.bandwidthGbps);
  const link = { from, to, rttMs, symmetric: value.symmetric !== false };
  return [bandwidthGbps === undefined ? link : { ...link, bandwidthGbps }];
}

function readMeasuredLink(value: unknown): MeasuredLink[] {
  if (!isRecord(value)) return [];
  const { from, to } = value;
  const rttMs = nonNegative(value.rttMs);
  if (typeof from !== 'string' || typeof to !== 'string' || rttMs === undefined) return [];
  const rttP99Ms = nonNegative(value.rttP99Ms);
  const samples = nonNegative(value.samples);
  const bandwidthGbps = nonNegative(value.bandwidthGbps);
  return [
    {
      from,
      to,
      rttMs,
      ...(rttP99Ms === undefined ? {} : { rttP99Ms }),
      ...(samples === undefined ? {} : { samples }),
      ...(bandwidthGbps === undefined ? {} : { bandwidthGbps }),
    },
  ];
}

function readDegradedNode(value: unknown): DegradedNode[] {
  if (!isRecord(value) || typeof value.name !== 'string') return [];
  const rttMs = nonNegative(value.rttMs);
  const zoneRttMs = nonNegative(value.zoneRttMs);
  if (rttMs === undefined || zoneRttMs === undefined) return [];
  return [{ name: value.name, rttMs, zoneRttMs }];
}

function readMislabeled(value: unknown): MislabeledNode[] {
  if (!isRecord(value)) return [];
  const { node, label, value: labelValue, measured } = value;
  if (typeof node !== 'string' || typeof label !== 'string') return [];
  if (typeof labelValue !== 'string' || typeof measured !== 'string') return [];
  return [{ node, label, value: labelValue, measured }];
}

/** A finite, non-negative number (milliseconds, Gbps, a count). */
function nonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
