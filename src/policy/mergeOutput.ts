// One rule's output merged into what the policies add to the Pod, and an
// Audit policy's additions said in words.

import type { NodeSelectorRequirement, PreferredSchedulingTerm, TopologySpreadConstraint } from '../kube/types.ts';
import type { AfterCreation } from './types.ts';
import type { MergeResult, PodChanges } from './merge.ts';
import { describeRequirement, type RuleOutput } from './rules/rule.ts';

/** Where a merge says what it dropped: the decision's warnings, each naming the policy and the rule. */
export interface DropNotes {
  readonly said: string[];
  readonly policy: string;
  readonly rule: string;
}

/** No details: merges on the admission path write none, and share this one list. */
const NO_DETAILS: readonly string[] = [];

/**
 * Merges one rule's output; `details` (what was written, for explain) are only written when asked. Each output is
 * described by a function of it, never a closure made per output: every new Pod's rules pass here.
 */
export function merge(
  changes: PodChanges,
  output: RuleOutput,
  explain: boolean,
  drops: DropNotes,
  created: AfterCreation | undefined,
): { added: boolean; details: readonly string[] } {
  const details: string[] | undefined = explain ? [] : undefined;
  let added = false;
  for (const requirement of output.requirements)
    added = record(changes.addRequirement(requirement), drops, details, describeRequired, requirement) || added;
  for (const term of output.preferred)
    added = record(changes.addPreferred(term), drops, details, describePreferred, term) || added;
  const { spread, schedulerName, numaHint } = output;
  if (spread) added = record(changes.addSpread(spread), drops, details, describeSpread, spread) || added;
  if (schedulerName !== undefined && created !== undefined && created.schedulerName !== schedulerName) {
    const dropped = `schedulerName ${schedulerName} cannot be set on a Pod that exists (it was gated before topogate decided)`;
    added = record({ dropped }, drops, details, describeSchedulerName, schedulerName) || added;
  } else if (schedulerName !== undefined)
    added =
      record(changes.setSchedulerName(schedulerName), drops, details, describeSchedulerName, schedulerName) || added;
  if (numaHint && hasAny(numaHint))
    added = record(changes.setNumaHint(numaHint), drops, details, describeNumaHint, numaHint) || added;
  return { added, details: details ?? NO_DETAILS };
}

/** Says a dropped output, and for explain what was written; whether the output was added. */
function record<Output>(
  result: MergeResult,
  drops: DropNotes,
  details: string[] | undefined,
  describe: (output: Output) => string,
  output: Output,
): boolean {
  if ('dropped' in result) {
    drops.said.push(`policy ${drops.policy}: ${drops.rule}: ${result.dropped}`);
    details?.push(`dropped: ${result.dropped}`);
    return false;
  }
  details?.push(result.added ? describe(output) : `already present: ${describe(output)}`);
  return result.added;
}

const describeRequired = (requirement: NodeSelectorRequirement) => `required ${describeRequirement(requirement)}`;
const describePreferred = (term: PreferredSchedulingTerm) =>
  `preferred (weight ${term.weight}) ${(term.preference.matchExpressions ?? []).map(describeRequirement).join(', ')}`;
const describeSpread = (spread: TopologySpreadConstraint) =>
  `topologySpreadConstraint ${spread.topologyKey} maxSkew ${spread.maxSkew} ${spread.whenUnsatisfiable}`;
const describeSchedulerName = (name: string) => `schedulerName ${name}`;
const describeNumaHint = (hint: Readonly<Record<string, string>>) => `numa-hint ${JSON.stringify(hint)}`;

/** What an Audit policy would have written, for its warning and audit annotation. */
export function describeChanges(changes: PodChanges): string {
  const parts = [
    ...changes.requirements.map(describeRequired),
    ...changes.preferred.map(describePreferred),
    ...changes.spreads.map(describeSpread),
  ];
  if (changes.schedulerName !== undefined) parts.push(describeSchedulerName(changes.schedulerName));
  if (changes.numaHint) parts.push(`numa-hint on ${Object.keys(changes.numaHint).length} nodes`);
  return parts.join('; ');
}

/** Whether the record has a member: Object.keys would list a hint's every node to count them. */
function hasAny(record: Readonly<Record<string, string>>): boolean {
  for (const _ in record) return true;
  return false;
}
