// topogate.dev/v1alpha1 NetworkTopology → links between domains: declared in
// spec (by a person, the cloud provider or the CNI), measured in status (by
// `topogate probe` or an adapter of another tool's metrics).

import {
  DEFAULT_DOMAIN_LABEL,
  type DeclaredLink,
  type DegradedNode,
  type MeasuredLink,
  type MislabeledNode,
} from '../../api/v1alpha1/networktopology.ts';
import { isRecord } from '../../kube/json.ts';
import { list, record, string, timestamp } from './fields.ts';

export interface NetworkFacts {
  readonly name: string;
  readonly domainLabel: string;
  readonly links: readonly DeclaredLink[];
  readonly measured: readonly MeasuredLink[];
  readonly degradedNodes: readonly DegradedNode[];
  readonly mislabeled?: readonly MislabeledNode[];
  readonly observedAt?: number;
}

/** The CRD's bound on status.mislabeled; an object past it (edited by hand) is read no further. */
const MAX_MISLABELED = 100;

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

function readLink(value: unknown): DeclaredLink[] {
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
