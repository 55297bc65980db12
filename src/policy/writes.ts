// What a decision writes once its policies are decided: the annotations that
// name them and record the decision, the patch, and the audit annotations.
// All of it follows from what the applied policies added (the rules' outputs,
// kept and shared by every decision that adds them), their rules' results,
// and the part of the Pod the patch runs through. New Pods of one shape (a
// Deployment's next rollout, a Job's Pods) differ in labels no rule reads, so
// they get the same writes: DecisionMemo.writes keeps them by writesKey,
// which reads what writes() reads, for a third of a new Pod's decision.

import { FNV_OFFSET, FNV_PRIME } from '../kube/fnv1a.ts';
import type { PodShape } from '../kube/podFacts.ts';
import type { PatchOperation } from '../kube/types.ts';
import { textSteps } from '../memo/textHash.ts';
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
 * The parts of a key two Additions share only when writes() writes the same for both (on one snapshot): outputs
 * and policies by identity (objectId.ts), since they are never changed once made; the rest by value. A list, not
 * one text: a text made of these parts cost a new Pod a kilobyte of strings, then its encoding to be hashed. Each
 * field of Added and PatchedPod has its part in the tables below, whose types make a field added to either a part
 * here too. Lists are counted and policies ended by END (a number, where names are strings): no two inputs share
 * the parts in order.
 */
export type WritesKey = readonly (string | number)[];

/** Ends a policy's rules, and stands for an absent field. */
const END = -1;

export function writesKey({ applied, added, pod }: Additions): WritesKey {
  const key: (string | number)[] = [];
  for (const part of POD_PARTS) part(pod, key);
  key.push(applied.length);
  for (const { policy, rules } of applied) {
    key.push(objectId(policy));
    for (const rule in rules) key.push(rule, rules[rule]!);
    key.push(END);
  }
  for (const part of ADDED_PARTS) part(added, key);
  return key;
}

/** Whether two keys are one: the same parts in the same order. */
export function sameWritesKey(a: WritesKey, b: WritesKey): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/** FNV-1a's steps over the parts: a number (a small integer) in one step, a string by textSteps; 30 bits. */
export function writesKeyHash(key: WritesKey): number {
  let hash = Math.imul(FNV_OFFSET ^ key.length, FNV_PRIME);
  for (const part of key)
    hash = typeof part === 'number' ? Math.imul(hash ^ part, FNV_PRIME) : textSteps(hash ^ STRING_MARK, part);
  return hash & 0x3fffffff;
}

/** Mixed in before a string part: "" and 0 are different parts. */
const STRING_MARK = 0x40000000;

type Parts = (string | number)[];

const POD_KEY: { readonly [Field in keyof PatchedPod]-?: (pod: PatchedPod, key: Parts) => void } = {
  shape: ({ shape }, key) => {
    let bits = 0;
    for (const field of SHAPE_FIELDS) if (shape[field]) bits |= SHAPE_BITS[field];
    key.push(bits);
  },
  requiredTerms: ({ requiredTerms }, key) => {
    key.push(requiredTerms === undefined ? END : JSON.stringify(requiredTerms));
  },
};

const ADDED_KEY: { readonly [Field in keyof Added]-?: (added: Added, key: Parts) => void } = {
  requirements: ({ requirements }, key) => ids(requirements, key),
  preferred: ({ preferred }, key) => ids(preferred, key),
  spreads: ({ spreads }, key) => ids(spreads, key),
  numaHint: ({ numaHint }, key) => {
    key.push(numaHint === undefined ? END : objectId(numaHint));
  },
  schedulerName: ({ schedulerName }, key) => {
    key.push(schedulerName ?? END);
  },
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
const SHAPE_FIELDS = Object.keys(SHAPE_BITS) as (keyof PodShape)[];

/** The list counted, then each of its objects by identity. */
function ids(values: readonly object[], key: Parts): void {
  key.push(values.length);
  for (const value of values) key.push(objectId(value));
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
