// SchedulingPolicy v1alpha1 after validation and defaulting (see
// docs/policy.md): the types come from the schema (src/api/v1alpha1/schedulingpolicy-spec.ts) by TypeBox's Static. The loader
// produces these; the compiler and engine consume them.

import type { Static } from 'typebox';
import type { NodeSelectorRequirement, PatchOperation, TopologySpreadConstraint } from '../kube/types.ts';
export type { QosClass } from '../kube/qos.ts';
import type { Occupancy } from '../topology/model.ts';
import type { Frozen } from '../api/schema/frozen.ts';
import type * as schema from '../api/v1alpha1/schedulingpolicy-spec.ts';

export type { PodRequest } from '../kube/podFacts.ts';

/** Deeply read-only: the core never changes a loaded policy. */
export type { Frozen };

type Spec = Frozen<Static<typeof schema.policySpec>>;

export type PolicyRules = Spec['rules'];
export type PolicyMatch = NonNullable<Spec['match']>;
export type Enforcement = Spec['enforcement'];
export type NodeLabelsRule = NonNullable<PolicyRules['nodeLabels']>;
export type GpuRule = NonNullable<PolicyRules['gpu']>;
export type NumaRule = NonNullable<PolicyRules['numa']>;
export type LatencyRule = NonNullable<PolicyRules['latency']>;
export type BandwidthRule = NonNullable<PolicyRules['bandwidth']>;
export type PackRule = NonNullable<PolicyRules['pack']>;
export type ColocateRule = NonNullable<PolicyRules['colocate']>;
export type DraRule = NonNullable<PolicyRules['dra']>;
export type SpreadRule = NonNullable<PolicyRules['spread']>[number];
export type RuleMode = GpuRule['mode'];

export type LatencyTarget = LatencyRule['to'];

export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

/** A loaded policy: its name and spec, with enforcement and rollout left out at their defaults. */
export type SchedulingPolicy = Omit<Spec, 'enforcement' | 'rollout'> & {
  readonly name: string;
  /** Absent: Enforce. Audit: decided, said in warnings and audit annotations, never written nor denied. */
  readonly enforcement?: Enforcement;
  /** Absent: 100. The share of workloads the policy applies to (see rollout.ts). */
  readonly rollout?: Spec['rollout'];
  /** metadata.generation of a SchedulingPolicy object from the cluster. */
  readonly generation?: number;
  /** Where the policy was read from, for messages. */
  readonly source?: SourceLocation;
};

export interface DecisionOptions {
  /** Epoch ms, supplied by the shell: the core reads no clock. */
  readonly now: number;
  /** Sources older than this degrade the rules that need them. */
  readonly maxSourceAgeMs: number;
  /** Record a step-by-step trace (for explain); off on the hot path. */
  readonly explain?: boolean;
  /** The bound Pods now, when newer than the snapshot's own (a live model: Pods bind between snapshots). */
  readonly occupancy?: Occupancy;
  /** The Pod exists already: the placement controller releases it from behind the scheduling gate. */
  readonly created?: AfterCreation;
}

/**
 * What can still be written on a Pod that exists (Kubernetes' rules for a gated Pod): node affinity and
 * annotations, but no spread constraint and no scheduler name. A spread the Pod does not carry is pinned
 * instead (rules/spreadPin.ts); a scheduler name it does not have is dropped.
 */
export interface AfterCreation {
  /** The live Pod's spread constraints (topogate wrote them when it deferred the Pod at admission). */
  readonly spreads: readonly Pick<TopologySpreadConstraint, 'topologyKey' | 'whenUnsatisfiable'>[];
  /** The live Pod's spec.schedulerName. */
  readonly schedulerName: string | undefined;
  /**
   * A Reject policy that no schedulable node meets keeps its required outputs, so that the Pod waits, Pending, at
   * the scheduler, as it would have been denied at admission; otherwise the decision is a denial (wait).
   */
  readonly keepUnsatisfiable: boolean;
}

export interface Decision {
  readonly allowed: boolean;
  /** Why the Pod was denied (allowed = false). */
  readonly message?: string;
  /** The Reject policy that denied it (allowed = false). */
  readonly rejectedBy?: string;
  /** RFC 6902 operations that apply to the request's object; empty when unchanged. */
  readonly patch: readonly PatchOperation[];
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
  /** Names of the policies whose outputs were applied, in order. */
  readonly applied: readonly string[];
  /** Names of the policies that matched the Pod (Audit ones included; those the rollout left out not). */
  readonly matched: readonly string[];
  /** The Audit policies that matched, and whether their outputs would have changed the Pod. */
  readonly audited?: readonly AuditOutcome[];
  /** The topology snapshot decided on (snapshotId). */
  readonly snapshot?: string;
  /** Present when DecisionOptions.explain was set. */
  readonly trace?: unknown;
  /** Why the placement was deferred to the controller behind the scheduling gate (policy/deferral.ts). */
  readonly deferred?: string;
  /** The Reject policies applied with the required outputs that no node meets (AfterCreation.keepUnsatisfiable). */
  readonly unsatisfiable?: readonly string[];
  /** The requirements the patch writes into the Pod's required node affinity (every term, or its one term). */
  readonly required?: readonly NodeSelectorRequirement[];
}

export interface AuditOutcome {
  readonly policy: string;
  readonly wouldChange: boolean;
  /** Its required placement is unsatisfiable (under Reject it would have denied the Pod). */
  readonly unsatisfiable: boolean;
}
