// v1 Node → what decisions need of it.

import type { Taint, TaintEffect } from '../../kube/types.ts';
import type { NodeInfo } from '../model.ts';
import { isRecord } from '../../kube/json.ts';
import { list, record, resourceList, string, stringMap } from './fields.ts';

export type NodeFacts = Omit<NodeInfo, 'slot'>;

const EFFECTS: ReadonlySet<string> = new Set<TaintEffect>(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

export function readNode(name: string, object: Record<string, unknown>): NodeFacts {
  const spec = record(object.spec);
  const status = record(object.status);
  return {
    name,
    labels: stringMap(record(object.metadata).labels),
    allocatable: resourceList(status.allocatable),
    unschedulable: spec.unschedulable === true,
    ready: !list(status.conditions).some((c) => isRecord(c) && c.type === 'Ready' && c.status === 'False'),
    taints: list(spec.taints).flatMap(readTaint),
    addresses: list(status.addresses).flatMap((a) => (isRecord(a) && typeof a.address === 'string' ? [a.address] : [])),
  };
}

function readTaint(value: unknown): Taint[] {
  if (!isRecord(value) || typeof value.key !== 'string' || !EFFECTS.has(String(value.effect))) return [];
  const taint: Taint = { key: value.key, effect: value.effect as TaintEffect };
  const taintValue = string(value.value);
  return [taintValue ? { ...taint, value: taintValue } : taint];
}
