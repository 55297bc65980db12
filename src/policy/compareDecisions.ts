// What explain pod/… says about a live Pod: what was decided then (its
// decision record), what would be decided now, and why the two differ (pure).

import { isDeepStrictEqual } from 'node:util';
import type { DecisionTrace } from './explain.ts';
import type { DecisionRecord } from './record.ts';

export interface Comparison {
  readonly differs: boolean;
  readonly reasons: readonly string[];
}

export function compareDecisions(
  then: DecisionRecord | undefined,
  now: DecisionRecord | undefined,
  trace: DecisionTrace,
): Comparison {
  const reasons: string[] = [];
  const thenPolicies = new Map((then?.policies ?? []).map((policy) => [policy.name, policy]));
  const nowPolicies = new Map((now?.policies ?? []).map((policy) => [policy.name, policy]));
  for (const [name, before] of thenPolicies) {
    const after = nowPolicies.get(name);
    if (after === undefined) {
      const traced = trace.policies.find((policy) => policy.policy === name);
      const why =
        traced === undefined
          ? 'it is no longer in force (deleted, renamed or invalid)'
          : trace.skipped !== undefined
            ? trace.skipped
            : !traced.matched
              ? `it does not match now: ${traced.reason}`
              : `its outcome now is ${traced.outcome}`;
      reasons.push(`policy ${name} was applied then, not now: ${why}`);
      continue;
    }
    if (before.generation !== after.generation)
      reasons.push(
        `policy ${name} changed: generation ${before.generation ?? '?'} then, ${after.generation ?? '?'} now`,
      );
    for (const rule of new Set([...Object.keys(before.rules), ...Object.keys(after.rules)]))
      if (before.rules[rule] !== after.rules[rule])
        reasons.push(
          `policy ${name}, rule ${rule}: ${before.rules[rule] ?? 'absent'} then, ${after.rules[rule] ?? 'absent'} now`,
        );
  }
  for (const name of nowPolicies.keys())
    if (!thenPolicies.has(name)) reasons.push(`policy ${name} would be applied now, and was not then`);
  const added = (record: DecisionRecord | undefined) => record?.added ?? {};
  if (!isDeepStrictEqual(added(then), added(now))) {
    reasons.push(
      `what would be added differs: then ${JSON.stringify(added(then))}, now ${JSON.stringify(added(now))}` +
        (reasons.length === 0 ? ' (same policies and rule results: the model changed)' : ''),
    );
  }
  return { differs: reasons.length > 0, reasons };
}
