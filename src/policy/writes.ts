// What a decision writes once its policies are decided: the annotations that
// name them and record the decision, the patch, and the audit annotations.
// All of it follows from what the applied policies added (the rules' outputs,
// kept and shared by every decision that adds them), their rules' results,
// and the part of the Pod the patch runs through. New Pods of one shape (a
// Deployment's next rollout, a Job's Pods) differ in labels no rule reads, so
// they get the same writes: DecisionMemo.writes keeps them by writesKey,
// which reads what writes() reads, for a third of a new Pod's decision.

import type { PodShape } from '../kube/podFacts.ts';
import type { PatchOperation } from '../kube/types.ts';
import { jsonText } from './jsonText.ts';
import { buildPatch, NUMA_HINT_ANNOTATION, POLICIES_ANNOTATION, type Added, type PatchedPod } from './merge.ts';
import { objectId } from './objectId.ts';
import { DECISION_ANNOTATION, recordText, type RecordedPolicy, type RuleResultName } from './record.ts';
import type { SchedulingPolicy } from './types.ts';

export interface AppliedPolicy {
  readonly policy: SchedulingPolicy;
  /** Each of its rules' result, in rule order. */
  readonly rules: Readonly<Record<string, RuleResultName>>;
}

/** All that writes() reads of a decision: its applied policies (one at least), what they added, the Pod's part. */
export interface Additions {
  readonly applied: readonly AppliedPolicy[];
  readonly added: Added;
  readonly pod: PatchedPod;
}

export interface Writes {
  readonly patch: readonly PatchOperation[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

export function writes(snapshotId: string, { applied, added, pod }: Additions): Writes {
  const names = applied.map(({ policy }) => policy.name).join(',');
  const annotations: Record<string, string> = {};
  annotations[POLICIES_ANNOTATION] = names;
  if (added.numaHint) annotations[NUMA_HINT_ANNOTATION] = jsonText(added.numaHint);
  annotations[DECISION_ANNOTATION] = recordText(snapshotId, applied.map(recorded), added);
  return {
    patch: buildPatch(pod, added, annotations),
    auditAnnotations: { policies: names, placement: summarize(added), snapshot: snapshotId },
  };
}

/**
 * A text two Additions share only when writes() writes the same for both (on one snapshot): outputs and policies
 * by identity (objectId.ts), since they are never changed once made; the rest by value. Each field of Added and
 * PatchedPod has its part in the tables below, whose types make a field added to either a part here too.
 */
export function writesKey({ applied, added, pod }: Additions): string {
  let key = '';
  for (const part of POD_PARTS) key += `${part(pod)}|`;
  for (const { policy, rules } of applied) {
    key += objectId(policy);
    for (const rule in rules) key += `,${rule}=${rules[rule]}`;
    key += ';';
  }
  for (const part of ADDED_PARTS) key += `|${part(added)}`;
  return key;
}

const POD_KEY: { readonly [Field in keyof PatchedPod]-?: (pod: PatchedPod) => string } = {
  shape: ({ shape }) => {
    let bits = 0;
    for (const field in SHAPE_BITS) if (shape[field as keyof PodShape]) bits |= SHAPE_BITS[field as keyof PodShape];
    return String(bits);
  },
  requiredTerms: ({ requiredTerms }) => (requiredTerms === undefined ? '' : JSON.stringify(requiredTerms)),
};

const ADDED_KEY: { readonly [Field in keyof Added]-?: (added: Added) => string } = {
  requirements: ({ requirements }) => ids(requirements),
  preferred: ({ preferred }) => ids(preferred),
  spreads: ({ spreads }) => ids(spreads),
  numaHint: ({ numaHint }) => (numaHint === undefined ? '' : String(objectId(numaHint))),
  schedulerName: ({ schedulerName }) => (schedulerName === undefined ? '' : JSON.stringify(schedulerName)),
};

const POD_PARTS = Object.values(POD_KEY);
const ADDED_PARTS = Object.values(ADDED_KEY);

/** A bit per field: the type makes a field added to PodShape a field here too. */
const SHAPE_BITS: Readonly<Record<keyof PodShape, number>> = {
  metadata: 1,
  annotations: 2,
  spec: 4,
  affinity: 8,
  nodeAffinity: 16,
  requiredAffinity: 32,
  preferredAffinity: 64,
  topologySpreadConstraints: 128,
  schedulingGates: 256,
};

function ids(values: readonly object[]): string {
  let text = '';
  for (const value of values) text += `${objectId(value)},`;
  return text;
}

function recorded({ policy, rules }: AppliedPolicy): RecordedPolicy {
  return { name: policy.name, ...(policy.generation !== undefined && { generation: policy.generation }), rules };
}

function summarize(added: Added): string {
  const parts = [
    `${added.requirements.length} required`,
    `${added.preferred.length} preferred`,
    `${added.spreads.length} spread`,
  ];
  if (added.schedulerName) parts.push(`schedulerName ${added.schedulerName}`);
  if (added.numaHint) parts.push(`numa-hint on ${Object.keys(added.numaHint).length} nodes`);
  return parts.join(', ');
}
