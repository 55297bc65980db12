// One rule's output merged into what the policies add to the Pod, and an
// Audit policy's additions said in words.

import type { AfterCreation } from './types.ts';
import type { MergeResult, PodChanges } from './merge.ts';
import { describeRequirement, type RuleOutput } from './rules/rule.ts';

/** Merges one rule's output; `details` (what was written, for explain) are only written when asked. */
export function merge(
  changes: PodChanges,
  output: RuleOutput,
  explain: boolean,
  drop: (why: string) => void,
  created: AfterCreation | undefined,
): { added: boolean; details: string[] } {
  const details: string[] = [];
  let added = false;
  const record = (result: MergeResult, what: () => string) => {
    if ('dropped' in result) {
      drop(result.dropped);
      if (explain) details.push(`dropped: ${result.dropped}`);
    } else {
      added ||= result.added;
      if (explain) details.push(result.added ? what() : `already present: ${what()}`);
    }
  };
  for (const requirement of output.requirements)
    record(changes.addRequirement(requirement), () => `required ${describeRequirement(requirement)}`);
  for (const term of output.preferred) {
    record(
      changes.addPreferred(term),
      () =>
        `preferred (weight ${term.weight}) ${(term.preference.matchExpressions ?? []).map(describeRequirement).join(', ')}`,
    );
  }
  const { spread, schedulerName, numaHint } = output;
  if (spread)
    record(
      changes.addSpread(spread),
      () => `topologySpreadConstraint ${spread.topologyKey} maxSkew ${spread.maxSkew} ${spread.whenUnsatisfiable}`,
    );
  if (schedulerName !== undefined && created !== undefined && created.schedulerName !== schedulerName)
    record(
      {
        dropped: `schedulerName ${schedulerName} cannot be set on a Pod that exists (it was gated before topogate decided)`,
      },
      () => `schedulerName ${schedulerName}`,
    );
  else if (schedulerName !== undefined)
    record(changes.setSchedulerName(schedulerName), () => `schedulerName ${schedulerName}`);
  if (numaHint && Object.keys(numaHint).length > 0)
    record(changes.setNumaHint(numaHint), () => `numa-hint ${JSON.stringify(numaHint)}`);
  return { added, details };
}

/** What an Audit policy would have written, for its warning and audit annotation. */
export function describeChanges(changes: PodChanges): string {
  const parts = [
    ...changes.requirements.map((requirement) => `required ${describeRequirement(requirement)}`),
    ...changes.preferred.map(
      (term) =>
        `preferred (weight ${term.weight}) ${(term.preference.matchExpressions ?? []).map(describeRequirement).join(', ')}`,
    ),
    ...changes.spreads.map(
      (spread) =>
        `topologySpreadConstraint ${spread.topologyKey} maxSkew ${spread.maxSkew} ${spread.whenUnsatisfiable}`,
    ),
  ];
  if (changes.schedulerName !== undefined) parts.push(`schedulerName ${changes.schedulerName}`);
  if (changes.numaHint) parts.push(`numa-hint on ${Object.keys(changes.numaHint).length} nodes`);
  return parts.join('; ');
}
