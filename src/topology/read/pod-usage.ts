// v1 Pod → what it takes from its node: the scheduler's view of "requested"
// (effective requests of every non-terminal Pod bound to the node), and the
// workload it belongs to, so that a pack rule can find where a workload is.

import { podFacts } from '../../kube/podFacts.ts';
import { effectiveRequests } from '../../kube/requests.ts';
import { workloadKey } from '../../kube/workload-identity.ts';
import type { ResourceList } from '../model.ts';
import { record, string } from './fields.ts';

export interface PodUsage {
  readonly node: string;
  readonly requests: ResourceList;
  /** workloadKey of the Pod's workload. */
  readonly workload: string;
}

const TERMINAL = new Set(['Succeeded', 'Failed']);

/** Undefined for a Pod that takes nothing: not bound yet, or finished. */
export function readPodUsage(object: Record<string, unknown>): PodUsage | undefined {
  const node = string(record(object.spec).nodeName);
  if (!node || TERMINAL.has(string(record(object.status).phase) ?? '')) return undefined;
  const facts = podFacts(object, string(record(object.metadata).namespace) || 'default');
  return { node, requests: effectiveRequests(facts.resources), workload: workloadKey(facts.workload) };
}
