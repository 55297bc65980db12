// v1 Pod → what it takes from its node: the scheduler's view of "requested"
// (effective requests of every non-terminal Pod bound to the node), and the
// workload it belongs to, so that a pack rule can find where a workload is.
// A Pod not bound yet takes nothing from a node, but when its nodeSelector or
// required node affinity holds it to one label value (a rack a pack rule
// chose, a zone), it will take from that value's nodes: pack counts it there.

import type { PlacementFacts } from '../../kube/podFacts.ts';
import { podFacts } from '../../kube/podFacts.ts';
import { effectiveRequests } from '../../kube/requests.ts';
import type { Labels } from '../../kube/types.ts';
import { workloadKey } from '../../kube/workload-identity.ts';
import type { ResourceList } from '../model.ts';
import { record, string } from './fields.ts';

export type PodUsage = BoundUsage | PendingUsage;

interface Usage {
  readonly requests: ResourceList;
  /** workloadKey of the Pod's workload. */
  readonly workload: string;
}

export interface BoundUsage extends Usage {
  readonly node: string;
}

/** Admitted, not bound yet, and held to one value of each of these node labels. */
export interface PendingUsage extends Usage {
  readonly node?: undefined;
  readonly heldTo: Labels;
}

const TERMINAL = new Set(['Succeeded', 'Failed']);

/** Undefined for a Pod that takes nothing: finished, or not bound and free to go anywhere. */
export function readPodUsage(object: Record<string, unknown>): PodUsage | undefined {
  if (TERMINAL.has(string(record(object.status).phase) ?? '')) return undefined;
  const facts = podFacts(object, string(record(object.metadata).namespace) || 'default');
  const usage = { requests: effectiveRequests(facts.resources), workload: workloadKey(facts.workload) };
  if (facts.nodeName) return { node: facts.nodeName, ...usage };
  const heldTo = heldToOf(facts.placement);
  return heldTo === undefined ? undefined : { heldTo, ...usage };
}

/**
 * The node labels a Pod can only land under one value of: its nodeSelector, and `In` requirements of one
 * value when its required affinity has one term (terms are ORed, so two terms hold it to nothing).
 */
function heldToOf({ nodeSelector, requiredTerms }: PlacementFacts): Labels | undefined {
  const held: Record<string, string> = { ...nodeSelector };
  const term = requiredTerms?.length === 1 ? requiredTerms[0] : undefined;
  for (const { key, operator, values } of term?.matchExpressions ?? [])
    if (operator === 'In' && values.length === 1) held[key] = values[0]!;
  return Object.keys(held).length > 0 ? held : undefined;
}
