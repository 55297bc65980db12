// v1 Pod → what it takes from its node: the scheduler's view of "requested"
// (effective requests of every non-terminal Pod bound to the node), and the
// workload it belongs to, so that a pack rule can find where a workload is.
// A Pod not bound yet takes nothing from a node, but when its nodeSelector or
// required node affinity holds it to one label value (a rack a pack rule
// chose, a zone), it will take from that value's nodes: pack counts it there.

import type { PlacementFacts, PodFacts, RequirementFacts } from '../../kube/podFacts.ts';
import { podFacts } from '../../kube/podFacts.ts';
import { effectiveRequests } from '../../kube/requests.ts';
import type { Labels, NodeSelectorRequirement } from '../../kube/types.ts';
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

/** The part of a Pod's placement that can hold it to one label value. */
interface HeldPlacement {
  readonly nodeSelector: PlacementFacts['nodeSelector'];
  readonly requiredTerms:
    readonly ({ readonly matchExpressions: readonly RequirementFacts[] } | null)[] | null | undefined;
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
 * What a Pod being admitted with `added` written into its required node affinity (in every term, or as its one
 * term) will take once it exists, as readPodUsage will read it; undefined when that holds it to no label value.
 */
export function admittedUsage(facts: PodFacts, added: readonly NodeSelectorRequirement[]): PendingUsage | undefined {
  if (facts.nodeName) return undefined;
  const expressions = added.map(({ key, operator, values }) => ({ key, operator, values: values ?? [] }));
  const terms = facts.placement.requiredTerms;
  const requiredTerms =
    terms === undefined || terms === null || terms.length === 0
      ? [{ matchExpressions: expressions }]
      : terms.map((term) => term && { matchExpressions: [...term.matchExpressions, ...expressions] });
  const heldTo = heldToOf({ nodeSelector: facts.placement.nodeSelector, requiredTerms });
  if (heldTo === undefined) return undefined;
  return { heldTo, requests: effectiveRequests(facts.resources), workload: workloadKey(facts.workload) };
}

/**
 * The node labels a Pod can only land under one value of: its nodeSelector, and `In` requirements of one
 * value when its required affinity has one term (terms are ORed, so two terms hold it to nothing).
 */
function heldToOf({ nodeSelector, requiredTerms }: HeldPlacement): Labels | undefined {
  const held: Record<string, string> = { ...nodeSelector };
  const term = requiredTerms?.length === 1 ? requiredTerms[0] : undefined;
  for (const { key, operator, values } of term?.matchExpressions ?? [])
    if (operator === 'In' && values.length === 1) held[key] = values[0]!;
  return Object.keys(held).length > 0 ? held : undefined;
}
