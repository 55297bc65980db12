// What one policy's step of a decision comes to (engine.ts folds these into
// the decision), and the recorder a decision tells its story to: a no-op one
// for admission, the explain trace's (recorder.ts) when asked.

import type { NodeSet } from '../topology/nodeset.ts';
import type { CompiledPolicy, CompiledPolicySet } from './compiler.ts';
import type { PodContext } from './context.ts';
import type { DecisionTrace, RuleTrace } from './explain.ts';
import type { PodChanges } from './merge.ts';
import type { RuleResultName } from './record.ts';
import type { SchedulingPolicy } from './types.ts';

export type PolicyOutcome =
  | { readonly kind: 'not matched'; readonly reason: string }
  /** Its required placement leaves no schedulable node and it says Reject: an Enforce policy denies the Pod. */
  | { readonly kind: 'rejected'; readonly message: string; readonly rules: readonly RuleTrace[] }
  | {
      readonly kind: 'decided';
      /** Its outputs added something to the Pod (or, under Audit, would have). */
      readonly changed: boolean;
      /** Its required placement was unsatisfiable: dropped, or kept on a Pod that exists. */
      readonly unsatisfiable: boolean;
      /** Kept although unsatisfiable (AfterCreation.keepUnsatisfiable). */
      readonly kept: boolean;
      readonly results: Readonly<Record<string, RuleResultName>>;
      /** The schedulable nodes the Pod's placement allows with its outputs. */
      readonly nodes: NodeSet;
      /** What it added: the decision's changes, or its own under Audit. */
      readonly changes: PodChanges;
      /** What it said: the decision's warnings, or its own under Audit (said in one warning). */
      readonly said: readonly string[];
    };

/** Who and what a decision's trace is about. */
export interface TraceHead {
  readonly pod: string;
  readonly namespace: string;
  /** namespace/Kind/name */
  readonly workload: string;
  readonly snapshot: string;
}

/** How a decision's trace ends; node sets rather than sizes, which only explain counts. */
export interface TraceEnd {
  readonly skipped?: string;
  /** Nodes in the model. */
  readonly total: number;
  readonly schedulable: NodeSet;
  /** Those the Pod's own placement allows. */
  readonly own: NodeSet;
  /** Those the decision leaves allowed. */
  readonly final: NodeSet;
  readonly allowed: boolean;
  readonly message?: string | undefined;
  readonly warnings: readonly string[];
}

export interface DecisionRecorder {
  /** Merges say what they wrote. */
  readonly details: boolean;
  /** The policies looked at: explain looks at every one, to say why one does not match. */
  candidates(compiled: CompiledPolicySet, namespace: string): readonly CompiledPolicy[];
  whyNot(policy: CompiledPolicy, pod: PodContext): string | undefined;
  dropped(rule: string, why: string, before: NodeSet): void;
  merged(
    rule: string,
    added: boolean,
    details: readonly string[],
    notes: readonly string[] | undefined,
    before: NodeSet,
    after: NodeSet,
  ): void;
  /** After its rules: the policy's outcome, with the nodes allowed before and after it. */
  policy(policy: SchedulingPolicy, outcome: PolicyOutcome, before: NodeSet, after: NodeSet): void;
  trace(end: TraceEnd): DecisionTrace | undefined;
}
