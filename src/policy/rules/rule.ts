// The shape every compiled rule has: compiled once per snapshot, evaluated
// per Pod into outputs the merge step writes onto the Pod.

import type { NodeSelectorRequirement, PreferredSchedulingTerm, TopologySpreadConstraint } from '../../kube/types.ts';
import type { NodeSet } from '../../topology/nodeset.ts';
import type { PodContext } from '../context.ts';

export interface RuleOutput {
  /** Node requirements ANDed into every required nodeSelectorTerm. */
  readonly requirements: readonly NodeSelectorRequirement[];
  /** The nodes the output's hard part allows; undefined when it constrains nothing. */
  readonly nodes?: NodeSet;
  /** What the model holds, said when no schedulable node is left. */
  readonly modelHolds?: string;
  readonly preferred: readonly PreferredSchedulingTerm[];
  readonly spread?: TopologySpreadConstraint;
  readonly schedulerName?: string;
  /** Candidate node → NUMA zone. */
  readonly numaHint?: Readonly<Record<string, string>>;
  /** Said alongside the output (a degraded rule, a hint the kubelet may not honour). */
  readonly warnings: readonly string[];
  /** Why the rule chose what it wrote (a pack domain, the source that qualified GPU nodes): said by explain only. */
  readonly notes?: readonly string[];
}

export type RuleResult = { readonly output: RuleOutput } | { readonly dropped: string };

export interface RuleInput {
  readonly pod: PodContext;
  /** Schedulable nodes the Pod's placement allows so far, this policy's earlier required rules included. */
  readonly allowed: NodeSet;
}

export interface CompiledRule {
  /** As written in the policy: nodeLabels.required, gpu, numa, latency, spread[0], … */
  readonly name: string;
  /** Its output is a required one (dropped with the policy's others when unsatisfiable). */
  readonly hard: boolean;
  evaluate(input: RuleInput): RuleResult;
}

/**
 * The empty list of every output that has none of a kind: outputs are never changed once made. Not frozen: V8 makes
 * an iterator for for…of over a frozen array.
 */
export const NONE: readonly never[] = [];

export function output(fields: Partial<RuleOutput>): RuleResult {
  return { output: { requirements: NONE, preferred: NONE, warnings: NONE, ...fields } };
}

export function describeRequirement(requirement: NodeSelectorRequirement): string {
  const values = requirement.values?.length ? ` [${requirement.values.join(', ')}]` : '';
  return `${requirement.key} ${requirement.operator}${values}`;
}
