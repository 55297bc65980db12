// kube-system Pods labelled tier=control-plane → which component runs where.

import type { ControlPlanePod } from '../model.ts';
import { record, string, stringMap } from './fields.ts';

export function isControlPlanePod(object: Record<string, unknown>): boolean {
  const metadata = record(object.metadata);
  return metadata.namespace === 'kube-system' && stringMap(metadata.labels).tier === 'control-plane';
}

export function readControlPlanePod(name: string, object: Record<string, unknown>): ControlPlanePod {
  const nodeName = string(record(object.spec).nodeName);
  const component = stringMap(record(object.metadata).labels).component ?? '';
  return nodeName ? { name, component, nodeName } : { name, component };
}
