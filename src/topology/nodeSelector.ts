// Node placement as NodeSets: NodeSelectorRequirements, terms (ORed, each an
// AND of its expressions and fields), spec.nodeSelector and required node
// affinity answered from the snapshot's label indexes, never by visiting nodes.

import type { NodeIndex } from './model.ts';
import { NodeSet } from './nodeset.ts';
import type { PlacementFacts, TermFacts } from '../kube/podFacts.ts';

/** A policy's NodeSelectorRequirement or a Pod's parsed one: an operator the scheduler does not know matches nothing. */
export interface Requirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

export function requirementNodes(nodes: NodeIndex, requirement: Requirement): NodeSet {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return unionOfValues(nodes, requirement.key, values);
    case 'NotIn':
      return nodes.all().andNot(unionOfValues(nodes, requirement.key, values));
    case 'Exists':
      return nodes.withLabel(requirement.key);
    case 'DoesNotExist':
      return nodes.all().andNot(nodes.withLabel(requirement.key));
    case 'Gt':
    case 'Lt':
      return numericComparison(nodes, requirement.key, requirement.operator, values);
    default:
      return NodeSet.EMPTY;
  }
}

/** matchFields supports only metadata.name with In and NotIn. */
export function fieldRequirementNodes(nodes: NodeIndex, requirement: Requirement): NodeSet {
  if (requirement.key !== 'metadata.name') return NodeSet.EMPTY;
  const named = NodeSet.of(namedSlots(nodes, requirement.values ?? []));
  if (requirement.operator === 'In') return named;
  if (requirement.operator === 'NotIn') return nodes.all().andNot(named);
  return NodeSet.EMPTY;
}

export function requirementsNodes(nodes: NodeIndex, requirements: readonly Requirement[]): NodeSet {
  let matching = nodes.all();
  for (const requirement of requirements) matching = matching.and(requirementNodes(nodes, requirement));
  return matching;
}

/** A term with neither expressions nor fields, or one that is malformed, matches no node, as in the scheduler. */
export function termNodes(nodes: NodeIndex, term: TermFacts | null): NodeSet {
  if (term === null || term.malformed) return NodeSet.EMPTY;
  if (term.matchExpressions.length === 0 && term.matchFields.length === 0) return NodeSet.EMPTY;
  let matching = requirementsNodes(nodes, term.matchExpressions);
  for (const field of term.matchFields) matching = matching.and(fieldRequirementNodes(nodes, field));
  return matching;
}

/** The nodes the Pod's own spec.nodeSelector and required node affinity allow. */
export function podPlacementNodes(nodes: NodeIndex, placement: PlacementFacts): NodeSet {
  let matching = nodes.all();
  for (const [key, value] of Object.entries(placement.nodeSelector ?? {}))
    matching = matching.and(nodes.withLabelValue(key, value));
  if (placement.requiredTerms !== undefined) {
    let anyTerm = NodeSet.EMPTY;
    for (const term of placement.requiredTerms ?? []) anyTerm = anyTerm.or(termNodes(nodes, term));
    matching = matching.and(anyTerm);
  }
  return matching;
}

function unionOfValues(nodes: NodeIndex, key: string, values: readonly string[]): NodeSet {
  let union = NodeSet.EMPTY;
  for (const value of values) union = union.or(nodes.withLabelValue(key, value));
  return union;
}

function numericComparison(nodes: NodeIndex, key: string, operator: 'Gt' | 'Lt', values: readonly string[]): NodeSet {
  const bound = values.length === 1 ? parseInteger(values[0]) : undefined;
  if (bound === undefined) return NodeSet.EMPTY;
  let union = NodeSet.EMPTY;
  for (const [value, slots] of nodes.labelValues(key)) {
    const number = parseInteger(value);
    if (number !== undefined && (operator === 'Gt' ? number > bound : number < bound)) union = union.or(slots);
  }
  return union;
}

/** The scheduler parses Gt/Lt operands with strconv.ParseInt. */
function parseInteger(value: string | undefined): number | undefined {
  return value !== undefined && /^[+-]?\d+$/.test(value) ? Number(value) : undefined;
}

function* namedSlots(nodes: NodeIndex, names: readonly string[]): Iterable<number> {
  for (const name of names) {
    const node = nodes.get(name);
    if (node) yield node.slot;
  }
}
