// SchedulingPolicy v1alpha1 after validation and defaulting (see
// ../shared/spec/policy.md and docs/policy.md). The loader produces these;
// the compiler and engine consume them.

import type { LabelSelector, NodeSelectorRequirement, PatchOperation } from '../kube/types.ts';
import type { QosClass } from '../kube/qos.ts';
import type { RttPercentile } from '../topology/model.ts';

export type { PodRequest } from '../kube/podFacts.ts';

export type RuleMode = 'Required' | 'Preferred';

export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

export interface PolicyMatch {
  readonly namespaces?: readonly string[];
  readonly excludeNamespaces?: readonly string[];
  readonly namespaceSelector?: LabelSelector;
  readonly podSelector?: LabelSelector;
  readonly resources?: readonly string[];
  readonly qosClasses?: readonly QosClass[];
}

export type { QosClass };

export interface NodeLabelsRule {
  readonly required: readonly NodeSelectorRequirement[];
  readonly preferred: readonly { readonly weight: number; readonly requirements: readonly NodeSelectorRequirement[] }[];
}

export interface GpuRule {
  readonly products: readonly string[];
  readonly minMemoryMiB?: number;
  readonly resource: string;
  readonly mode: RuleMode;
  readonly weight: number;
}

export interface NumaRule {
  readonly policy: 'SingleNUMANode';
  readonly mode: RuleMode;
  readonly maxCandidates: number;
  readonly schedulerName?: string;
}

export type LatencyTarget = { readonly zone: string } | { readonly service: string } | { readonly etcdLeader: true };

export interface LatencyRule {
  readonly to: LatencyTarget;
  readonly maxRttMs: number;
  readonly mode: RuleMode;
  /** p50 (absent) reads status rttMs, p99 status rttP99Ms. */
  readonly percentile?: RttPercentile;
  /** Leave out the nodes in NetworkTopology status.degradedNodes (absent: false). */
  readonly avoidDegradedNodes?: boolean;
}

export interface BandwidthRule {
  readonly to: LatencyTarget;
  readonly minGbps: number;
  readonly mode: RuleMode;
}

export interface PackRule {
  /** Node label keys, outermost first. */
  readonly levels: readonly string[];
  /** One of levels: the domains one workload is kept in. */
  readonly level: string;
  readonly mode: RuleMode;
}

export interface DraRule {
  /** The device attribute every request of a claim must agree on (resource.kubernetes.io/pcieRoot, numaNode, …). */
  readonly alignBy: string;
}

export interface SpreadRule {
  readonly topologyKey: string;
  readonly maxSkew: number;
  readonly whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  readonly minDomains?: number;
  /** Absent: the default keys (app.kubernetes.io/name, app.kubernetes.io/instance, app). */
  readonly selectorLabelKeys?: readonly string[];
  readonly matchLabelKeys?: readonly string[];
}

export interface PolicyRules {
  readonly nodeLabels?: NodeLabelsRule;
  readonly gpu?: GpuRule;
  readonly numa?: NumaRule;
  readonly latency?: LatencyRule;
  readonly bandwidth?: BandwidthRule;
  readonly pack?: PackRule;
  readonly spread?: readonly SpreadRule[];
  readonly dra?: DraRule;
}

export type Enforcement = 'Enforce' | 'Audit';

export interface SchedulingPolicy {
  readonly name: string;
  readonly priority: number;
  readonly match?: PolicyMatch;
  readonly onUnsatisfiable: 'Warn' | 'Reject';
  /** Absent: Enforce. Audit: decided, said in warnings and audit annotations, never written nor denied. */
  readonly enforcement?: Enforcement;
  /** Absent: 100. The share of workloads the policy applies to (see rollout.ts). */
  readonly rollout?: { readonly percent: number };
  readonly rules: PolicyRules;
  /** metadata.generation of a SchedulingPolicy object from the cluster. */
  readonly generation?: number;
  /** Where the policy was read from, for messages. */
  readonly source?: SourceLocation;
}

export interface DecisionOptions {
  /** Epoch ms, supplied by the shell: the core reads no clock. */
  readonly now: number;
  /** Sources older than this degrade the rules that need them. */
  readonly maxSourceAgeMs: number;
  /** Record a step-by-step trace (for explain); off on the hot path. */
  readonly explain?: boolean;
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
}

export interface AuditOutcome {
  readonly policy: string;
  readonly wouldChange: boolean;
  /** Its required placement is unsatisfiable (under Reject it would have denied the Pod). */
  readonly unsatisfiable: boolean;
}
