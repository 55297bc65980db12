// The decision record: the annotation topogate.dev/decision that every Pod
// topogate changed carries (docs/rollout.md). Compact JSON naming each applied
// policy (with its generation when it came from the cluster) and each of its
// rules' results, the topology snapshot it was decided on, and what was
// added, so that `explain pod/…` and `audit` can take the additions back and
// decide the Pod again.

import { isRecord, recordsOf } from '../kube/json.ts';
import type { NodeSelectorRequirement, Pod, PreferredSchedulingTerm, TopologySpreadConstraint } from '../kube/types.ts';
import { jsonList } from './jsonText.ts';
import type { Added } from './merge.ts';

export const DECISION_ANNOTATION = 'topogate.dev/decision';

/**
 * `pinned`: a spread constraint that a Pod which already existed could not be given, held instead by the node
 * affinity to one domain written in `added.required` (rules/spreadPin.ts).
 */
export type RuleResultName = 'added' | 'pinned' | 'unchanged' | 'dropped';

export interface RecordedPolicy {
  readonly name: string;
  readonly generation?: number;
  readonly rules: Readonly<Record<string, RuleResultName>>;
}

export interface DecisionRecord {
  readonly snapshot: string;
  readonly policies: readonly RecordedPolicy[];
  readonly added: {
    readonly required?: readonly NodeSelectorRequirement[];
    readonly preferred?: readonly PreferredSchedulingTerm[];
    readonly spread?: readonly TopologySpreadConstraint[];
    readonly schedulerName?: string;
  };
}

/** JSON.stringify of the DecisionRecord, with what was added joined from each output's kept text (jsonText.ts). */
export function recordText(snapshot: string, policies: readonly RecordedPolicy[], changes: Added): string {
  const { requirements, preferred, spreads, schedulerName } = changes;
  const added: string[] = [];
  if (requirements.length > 0) added.push(`"required":${jsonList(requirements)}`);
  if (preferred.length > 0) added.push(`"preferred":${jsonList(preferred)}`);
  if (spreads.length > 0) added.push(`"spread":${jsonList(spreads)}`);
  if (schedulerName !== undefined) added.push(`"schedulerName":${JSON.stringify(schedulerName)}`);
  return `{"snapshot":${JSON.stringify(snapshot)},"policies":${JSON.stringify(policies)},"added":{${added.join(',')}}}`;
}

/** The Pod's decision record; undefined when it has none, or one that is not a record (said in `problem`). */
export function readRecord(pod: Pod): { record?: DecisionRecord; problem?: string } {
  const text = pod.metadata?.annotations?.[DECISION_ANNOTATION];
  if (typeof text !== 'string') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `annotation ${DECISION_ANNOTATION} is not JSON` };
  }
  if (
    !isRecord(value) ||
    typeof value.snapshot !== 'string' ||
    !Array.isArray(value.policies) ||
    !isRecord(value.added)
  )
    return { problem: `annotation ${DECISION_ANNOTATION} is not a decision record` };
  const policies = recordsOf(value.policies)
    .filter((policy) => typeof policy.name === 'string')
    .map((policy) => ({
      name: String(policy.name),
      ...(typeof policy.generation === 'number' && { generation: policy.generation }),
      rules: isRecord(policy.rules) ? (policy.rules as Record<string, RuleResultName>) : {},
    }));
  const added = value.added;
  return {
    record: {
      snapshot: value.snapshot,
      policies,
      added: {
        ...(Array.isArray(added.required) && {
          required: recordsOf(added.required) as unknown as NodeSelectorRequirement[],
        }),
        ...(Array.isArray(added.preferred) && {
          preferred: recordsOf(added.preferred) as unknown as PreferredSchedulingTerm[],
        }),
        ...(Array.isArray(added.spread) && {
          spread: recordsOf(added.spread) as unknown as TopologySpreadConstraint[],
        }),
        ...(typeof added.schedulerName === 'string' && { schedulerName: added.schedulerName }),
      },
    },
  };
}
